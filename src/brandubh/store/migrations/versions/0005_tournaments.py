"""Tournaments: every finished tournament (summary, view, export) and each player's place.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("format", sa.Text, nullable=False),
        sa.Column("creator_id", sa.Text, nullable=False),
        sa.Column("starts_at", sa.BigInteger, nullable=False),
        sa.Column("ended", sa.BigInteger, nullable=False),
        sa.Column("summary", JSONB, nullable=False),
        sa.Column("view", JSONB, nullable=False),
        sa.Column("export", JSONB, nullable=False),
    )
    op.create_index("tournaments_by_end", "tournaments", ["ended"])
    op.create_table(
        "tournament_players",
        sa.Column(
            "tournament_id",
            sa.Text,
            sa.ForeignKey("tournaments.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("player_id", sa.Text, nullable=False),
        sa.Column("rank", sa.Integer, nullable=False),
        sa.Column("points", sa.Float, nullable=False),
        sa.PrimaryKeyConstraint("tournament_id", "player_id"),
    )
    op.create_index("tournament_players_by_player", "tournament_players", ["player_id"])


def downgrade() -> None:
    op.drop_table("tournament_players")
    op.drop_table("tournaments")
