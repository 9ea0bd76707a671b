"""Puzzles, each account's puzzle rating, and each player's first attempts (hub/puzzles/).

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "puzzles",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("ruleset", sa.Text, nullable=False),
        sa.Column("position", sa.Text, nullable=False),
        sa.Column("solution", sa.Text, nullable=False),
        sa.Column("theme", sa.Text, nullable=False),
        sa.Column("depth", sa.Integer, nullable=False),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("rd", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("plays", sa.Integer, nullable=False),
        sa.Column("added", sa.BigInteger, nullable=False),
    )
    op.create_index("puzzles_by_rating", "puzzles", ["rating"])
    op.create_table(
        "puzzle_ratings",
        sa.Column(
            "player_id",
            sa.Text,
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("rd", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("best_streak", sa.Integer, nullable=False),
    )
    op.create_table(
        "puzzle_attempts",
        sa.Column("player_id", sa.Text, nullable=False),
        sa.Column(
            "puzzle_id",
            sa.Text,
            sa.ForeignKey("puzzles.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("won", sa.Boolean, nullable=False),
        sa.Column("at", sa.BigInteger, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("rating_before", sa.Float, nullable=False),
        sa.Column("rating_after", sa.Float, nullable=False),
        sa.PrimaryKeyConstraint("player_id", "puzzle_id"),
    )
    op.create_index("puzzle_attempts_by_time", "puzzle_attempts", ["player_id", "at"])


def downgrade() -> None:
    op.drop_table("puzzle_attempts")
    op.drop_table("puzzle_ratings")
    op.drop_table("puzzles")
