"""``google.adk.sessions.database_session_service`` → here: SQLite and PostgreSQL sessions.

Unlike ``adk_runtime.sessions``, which imports it on first use, importing this module loads
SQLAlchemy's async engine at once.
"""

from adk_runtime.sessions.sql import DatabaseSessionService

__all__ = ["DatabaseSessionService"]
