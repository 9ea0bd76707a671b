"""Confirmed addresses and move reminders: two columns of accounts.

``verified`` is NULL for accounts made before addresses were confirmed (they count as
confirmed), false until the mailed link is followed, true after. ``reminders``: whether
the account wants move reminders by mail (docs/accounts.md).

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("accounts", sa.Column("verified", sa.Boolean, nullable=True))
    op.add_column(
        "accounts", sa.Column("reminders", sa.Boolean, nullable=False, server_default="true")
    )


def downgrade() -> None:
    op.drop_column("accounts", "reminders")
    op.drop_column("accounts", "verified")
