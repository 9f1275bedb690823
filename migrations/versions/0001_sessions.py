"""Sessions, events, app state and user state.

Revision ID: 0001
Revises:
Create Date: 2026-11-21
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from adk_runtime.sql.types import DateTimeUTC, JSONDocument

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ID = sa.String(128)


def upgrade() -> None:
    op.create_table(
        "adk_sessions",
        sa.Column("app_name", ID, nullable=False),
        sa.Column("user_id", ID, nullable=False),
        sa.Column("id", ID, nullable=False),
        sa.Column("state", JSONDocument, nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("create_time", DateTimeUTC(), nullable=False),
        sa.Column("update_time", DateTimeUTC(), nullable=False),
        sa.PrimaryKeyConstraint("app_name", "user_id", "id", name=op.f("pk_adk_sessions")),
    )
    op.create_index(
        op.f("ix_adk_sessions_app_name_update_time_user_id_id"),
        "adk_sessions",
        ["app_name", "update_time", "user_id", "id"],
    )
    op.create_index(
        op.f("ix_adk_sessions_app_name_user_id_update_time_id"),
        "adk_sessions",
        ["app_name", "user_id", "update_time", "id"],
    )
    op.create_table(
        "adk_events",
        sa.Column("app_name", ID, nullable=False),
        sa.Column("user_id", ID, nullable=False),
        sa.Column("session_id", ID, nullable=False),
        sa.Column("sequence", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("id", ID, nullable=False),
        sa.Column("invocation_id", ID, nullable=False),
        sa.Column("timestamp", sa.Double(), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["app_name", "user_id", "session_id"],
            ["adk_sessions.app_name", "adk_sessions.user_id", "adk_sessions.id"],
            name=op.f("fk_adk_events_adk_sessions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "app_name", "user_id", "session_id", "sequence", name=op.f("pk_adk_events")
        ),
        sa.UniqueConstraint(
            "app_name",
            "user_id",
            "session_id",
            "id",
            name=op.f("uq_adk_events_app_name_user_id_session_id_id"),
        ),
    )
    op.create_index(
        op.f("ix_adk_events_app_name_user_id_session_id_timestamp"),
        "adk_events",
        ["app_name", "user_id", "session_id", "timestamp"],
    )
    op.create_index(
        op.f("ix_adk_events_app_name_user_id_session_id_invocation_id"),
        "adk_events",
        ["app_name", "user_id", "session_id", "invocation_id"],
    )
    op.create_table(
        "adk_app_states",
        sa.Column("app_name", ID, nullable=False),
        sa.Column("state", JSONDocument, nullable=False),
        sa.Column("update_time", DateTimeUTC(), nullable=False),
        sa.PrimaryKeyConstraint("app_name", name=op.f("pk_adk_app_states")),
    )
    op.create_table(
        "adk_user_states",
        sa.Column("app_name", ID, nullable=False),
        sa.Column("user_id", ID, nullable=False),
        sa.Column("state", JSONDocument, nullable=False),
        sa.Column("update_time", DateTimeUTC(), nullable=False),
        sa.PrimaryKeyConstraint("app_name", "user_id", name=op.f("pk_adk_user_states")),
    )


def downgrade() -> None:
    op.drop_table("adk_user_states")
    op.drop_table("adk_app_states")
    op.drop_index(
        op.f("ix_adk_events_app_name_user_id_session_id_invocation_id"), table_name="adk_events"
    )
    op.drop_index(
        op.f("ix_adk_events_app_name_user_id_session_id_timestamp"), table_name="adk_events"
    )
    op.drop_table("adk_events")
    op.drop_index(
        op.f("ix_adk_sessions_app_name_user_id_update_time_id"), table_name="adk_sessions"
    )
    op.drop_index(
        op.f("ix_adk_sessions_app_name_update_time_user_id_id"), table_name="adk_sessions"
    )
    op.drop_table("adk_sessions")
