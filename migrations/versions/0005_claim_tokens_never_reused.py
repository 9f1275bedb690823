"""Claim tokens are 63-bit random numbers, never reused (issue 48).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01

A claim's fencing token was a per-session counter, which started again at 1 when a session
was deleted and created again, so a turn of the deleted incarnation could renew or release
the new incarnation's claim. Each acquisition now stores a new random 63-bit token
(:func:`adk_runtime.sessions.claims.new_claim_token`), so ``adk_sessions.claim_token`` is a
BIGINT on PostgreSQL. SQLite's INTEGER already holds 64 bits: nothing changes there (and no
batch copy of ``adk_sessions``, which would cascade to its events).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _on_postgresql() -> bool:
    return op.get_bind().dialect.name == "postgresql"


def upgrade() -> None:
    if _on_postgresql():
        op.alter_column(
            "adk_sessions", "claim_token", type_=sa.BigInteger(), existing_type=sa.Integer()
        )


def downgrade() -> None:
    # Tokens folded into a 32-bit range, where the earlier counter adds 1 to them.
    op.execute("UPDATE adk_sessions SET claim_token = claim_token % 2147483647")
    if _on_postgresql():
        op.alter_column(
            "adk_sessions", "claim_token", type_=sa.Integer(), existing_type=sa.BigInteger()
        )
