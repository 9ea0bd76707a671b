"""Bot accounts: an account upgraded (once, for good) to play through the Bot API only.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("accounts", sa.Column("bot", sa.Boolean, nullable=False, server_default="false"))


def downgrade() -> None:
    op.drop_column("accounts", "bot")
