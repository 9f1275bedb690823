"""Durable sessions on SQLite and PostgreSQL (SQLAlchemy async, Alembic migrations)."""

from adk_runtime.sessions.sql.service import DatabaseSessionService

__all__ = ["DatabaseSessionService"]
