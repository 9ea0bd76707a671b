"""The stars of the lessons an account finished (hub/lessons/).

Revision ID: 0011
Revises: 0009 (the lead re-chains it after 0010 at merge)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "lesson_stars",
        sa.Column(
            "account_id",
            sa.Text,
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("ruleset", sa.Text, nullable=False),
        sa.Column("stage", sa.Text, nullable=False),
        sa.Column("created", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("account_id", "ruleset", "stage"),
    )


def downgrade() -> None:
    op.drop_table("lesson_stars")
