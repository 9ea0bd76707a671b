"""The permanent record: accounts, ratings and their history, games, matches.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("email", sa.Text, nullable=False, unique=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("password_hash", sa.Text, nullable=False),
        sa.Column("created", sa.BigInteger, nullable=False),
        sa.Column("leaderboard", sa.Boolean, nullable=False, server_default="false"),
    )
    op.create_table(
        "games",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("ruleset", sa.Text, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("opponent", sa.Text, nullable=False),
        sa.Column("bot_level", sa.Integer),
        sa.Column("attacker_id", sa.Text),
        sa.Column("attacker_name", sa.Text),
        sa.Column("defender_id", sa.Text),
        sa.Column("defender_name", sa.Text),
        sa.Column("winner", sa.Text),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("plies", sa.Integer, nullable=False),
        sa.Column("move_time", sa.Integer, nullable=False),
        sa.Column("created", sa.BigInteger, nullable=False),
        sa.Column("ended", sa.BigInteger, nullable=False),
        sa.Column("moves", sa.Text, nullable=False),
        sa.Column("seed", sa.Text, nullable=False),
        sa.Column("commitment", sa.Text, nullable=False),
        sa.Column("record", sa.Text, nullable=False),
        sa.Column("match_id", sa.Text),
        sa.Column("match_no", sa.Integer),
        sa.Column("summary", JSONB, nullable=False),
        sa.Column("final", sa.LargeBinary, nullable=False),
        sa.Column("final_seq", sa.Integer, nullable=False),
    )
    op.create_table(
        "ratings",
        sa.Column(
            "player_id",
            sa.Text,
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("ruleset", sa.Text, nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("rd", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("last", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("player_id", "ruleset"),
    )
    op.create_index("ratings_board", "ratings", ["ruleset", "rating"])
    op.create_table(
        "rating_history",
        sa.Column(
            "player_id",
            sa.Text,
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("ruleset", sa.Text, nullable=False),
        sa.Column(
            "game_id", sa.Text, sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("t", sa.BigInteger, nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("rd", sa.Float, nullable=False),
        sa.PrimaryKeyConstraint("player_id", "game_id"),
    )
    op.create_index("rating_history_by_player", "rating_history", ["player_id", "ruleset", "t"])
    op.create_table(
        "game_players",
        sa.Column("player_id", sa.Text, nullable=False),
        sa.Column(
            "game_id", sa.Text, sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("ended", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("player_id", "game_id"),
    )
    op.create_index("game_players_by_end", "game_players", ["player_id", "ended"])
    op.create_table(
        "matches",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("ruleset", sa.Text, nullable=False),
        sa.Column("player_a", sa.Text, nullable=False),
        sa.Column("player_b", sa.Text, nullable=False),
        sa.Column("points_a", sa.Float, nullable=False),
        sa.Column("points_b", sa.Float, nullable=False),
        sa.Column("winner", sa.Text),
        sa.Column("games", sa.Text, nullable=False),
        sa.Column("ended", sa.BigInteger, nullable=False),
        sa.Column("summary", JSONB, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("matches")
    op.drop_table("game_players")
    op.drop_table("rating_history")
    op.drop_table("ratings")
    op.drop_table("games")
    op.drop_table("accounts")
