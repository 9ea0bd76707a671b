"""Analysis by the bot: each finished game's analysis, kept once per game and version;
the opening explorer's counts per rule set, position and move.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "analyses",
        sa.Column("game_id", sa.Text, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("ruleset", sa.Text, nullable=False),
        sa.Column("nodes", sa.Integer, nullable=False),
        sa.Column("analysis", JSONB, nullable=False),
        sa.Column("created", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("game_id", "version"),
    )
    # The opening explorer's counts (store/explorer.py). An archive kept before this
    # revision is counted by ``brandubh db explorer-rebuild``.
    op.create_table(
        "explorer_moves",
        sa.Column("ruleset", sa.Text, nullable=False),
        sa.Column("position", sa.LargeBinary, nullable=False),
        sa.Column("move", sa.Text, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("attackers", sa.Integer, nullable=False),
        sa.Column("defenders", sa.Integer, nullable=False),
        sa.Column("draws", sa.Integer, nullable=False),
        sa.Column("rated", sa.Integer, nullable=False),
        sa.Column("rating_sum", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("ruleset", "position", "move"),
    )


def downgrade() -> None:
    op.drop_table("explorer_moves")
    op.drop_table("analyses")
