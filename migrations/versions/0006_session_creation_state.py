"""Sessions keep the state they were created with (issue 48: fork and rewind).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-08

``adk_sessions`` gains ``creation_state``: the session-scoped state a session was created with
(a fork's: its source's), so the state "as of" an event — a fork's, a rewind's — is that state
folded with the events up to it (:func:`adk_runtime.sessions.fork.session_state_at`). Rows
that exist before the upgrade get NULL: their creation state is unknown, and their forks and
rewinds keep the older rule (a creation key changed later is lost). The downgrade drops the
column; the sessions then all follow the older rule.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from adk_runtime.sql.types import JSONDocument

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD COLUMN (no batch copy: recreating adk_sessions would cascade to its events).
    op.add_column(
        "adk_sessions",
        sa.Column("creation_state", JSONDocument, nullable=True),
    )


def downgrade() -> None:
    op.drop_column("adk_sessions", "creation_state")
