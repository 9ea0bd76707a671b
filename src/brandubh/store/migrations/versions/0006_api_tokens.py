"""Personal API tokens: each token's account, name, scopes, SHA-256, times.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column(
            "account_id",
            sa.Text,
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("scopes", sa.Text, nullable=False),
        sa.Column("hash", sa.LargeBinary, nullable=False, unique=True),
        sa.Column("created", sa.BigInteger, nullable=False),
        sa.Column("last_used", sa.BigInteger),
        sa.Column("revoked", sa.BigInteger),
    )
    op.create_index("api_tokens_by_account", "api_tokens", ["account_id", "created"])


def downgrade() -> None:
    op.drop_table("api_tokens")
