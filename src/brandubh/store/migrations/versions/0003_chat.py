"""Game chat: the archived player chats, chat reports, and two columns of accounts.

``chat_off``: the account hides game chats (docs/accounts.md). ``muted``: set by a
moderator; the account's chat lines are shown to itself only.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "accounts", sa.Column("chat_off", sa.Boolean, nullable=False, server_default="false")
    )
    op.add_column(
        "accounts", sa.Column("muted", sa.Boolean, nullable=False, server_default="false")
    )
    op.create_table(
        "chat_lines",
        sa.Column(
            "game_id", sa.Text, sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("n", sa.Integer, nullable=False),
        sa.Column("author_id", sa.Text, nullable=False),
        sa.Column("author_name", sa.Text, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("at", sa.BigInteger, nullable=False),
        sa.Column("muted", sa.Boolean, nullable=False),
        sa.PrimaryKeyConstraint("game_id", "n"),
    )
    op.create_table(
        "chat_reports",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("game_id", sa.Text, nullable=False),
        sa.Column("room", sa.Text, nullable=False),
        sa.Column("n", sa.Integer, nullable=False),
        sa.Column("author_id", sa.Text, nullable=False),
        sa.Column("author_name", sa.Text, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("reporter_id", sa.Text, nullable=False),
        sa.Column("created", sa.BigInteger, nullable=False),
        sa.Column("status", sa.Text, nullable=False, server_default="open"),
        sa.UniqueConstraint("game_id", "room", "n", "reporter_id"),
    )
    op.create_index("chat_reports_open", "chat_reports", ["status", "id"])


def downgrade() -> None:
    op.drop_table("chat_reports")
    op.drop_table("chat_lines")
    op.drop_column("accounts", "muted")
    op.drop_column("accounts", "chat_off")
