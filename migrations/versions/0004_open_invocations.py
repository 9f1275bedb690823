"""Open invocations: the turn a session runs, recorded by its claim (durable execution).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24

``adk_sessions`` gains ``open_invocation_id`` (the invocation a turn started and has not
finished; NULL when none) and ``open_since`` (when it started, seconds since the epoch by the
database's clock), plus a partial index on ``(app_name, user_id, id)`` over the rows where an
invocation is open, so listing interrupted invocations reads only those rows.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_OPEN = sa.text("open_invocation_id IS NOT NULL")


def upgrade() -> None:
    # Plain ADD COLUMN (no batch copy: recreating adk_sessions would cascade to its events).
    op.add_column("adk_sessions", sa.Column("open_invocation_id", sa.String(128), nullable=True))
    op.add_column("adk_sessions", sa.Column("open_since", sa.Double(), nullable=True))
    op.create_index(
        "ix_adk_sessions_open_invocations",
        "adk_sessions",
        ["app_name", "user_id", "id"],
        sqlite_where=_OPEN,
        postgresql_where=_OPEN,
    )


def downgrade() -> None:
    op.drop_index("ix_adk_sessions_open_invocations", table_name="adk_sessions")
    op.drop_column("adk_sessions", "open_since")
    op.drop_column("adk_sessions", "open_invocation_id")
