"""A retried claim acquisition gets the answer its first attempt got (issue 48).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-10

``adk_sessions`` gains ``claim_took_over``: whether the latest acquisition took over from a
holder whose lease ran out. An acquisition repeated with the same token after a lost reply
(:mod:`adk_runtime.sessions.claims`) is answered from it instead of finding the session held by
itself. Rows that exist before the upgrade get NULL (read as "not taken over"). The downgrade
drops the column; a retried acquisition then waits out its own lease again.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD COLUMN (no batch copy: recreating adk_sessions would cascade to its events).
    op.add_column("adk_sessions", sa.Column("claim_took_over", sa.Boolean(), nullable=True))


def downgrade() -> None:
    op.drop_column("adk_sessions", "claim_took_over")
