"""Follows and blocks between accounts (hub/social/).

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def _pair(table: str, who: str, whom: str) -> None:
    op.create_table(
        table,
        sa.Column(who, sa.Text, sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
        sa.Column(whom, sa.Text, sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
        sa.Column("created", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint(who, whom),
    )
    op.create_index(f"{table}_by_{whom}", table, [whom])


def upgrade() -> None:
    _pair("follows", "follower", "followed")
    _pair("blocks", "blocker", "blocked")


def downgrade() -> None:
    op.drop_table("blocks")
    op.drop_table("follows")
