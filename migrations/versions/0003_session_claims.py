"""Session claims: one turn at a time per session, across processes and replicas.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23

``adk_sessions`` gains ``claim_token`` (the fencing token of the latest claim, bumped by every
acquisition) and ``claim_until`` (when the current holder's lease runs out, in seconds since
the epoch by the database's clock; NULL when nobody holds the session).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD/DROP COLUMN (SQLite >= 3.35 has both): a batch "move and copy" would drop
    # adk_sessions, and with foreign keys on that deletes every event through the cascade.
    op.add_column(
        "adk_sessions", sa.Column("claim_token", sa.Integer(), nullable=False, server_default="0")
    )
    op.add_column("adk_sessions", sa.Column("claim_until", sa.Double(), nullable=True))


def downgrade() -> None:
    op.drop_column("adk_sessions", "claim_until")
    op.drop_column("adk_sessions", "claim_token")
