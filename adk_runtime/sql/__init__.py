"""The SQL foundation shared by the SQL session, artifact and memory services.

- :mod:`.url`: accepted URL spellings → the async driver; everything else is rejected.
- :mod:`.engine`: :func:`create_engine` (tuned SQLite, PostgreSQL) and :class:`Database`
  (write transactions, autocommit reads, error translation).
- :mod:`.errors`: driver errors → typed errors, at one boundary.
- :mod:`.schema`: the one ``MetaData``; :mod:`.types`: dialect-portable column types.
- :mod:`.migrate`: Alembic upgrade / downgrade / stamp / status, ``ensure_schema``.
"""

from adk_runtime.sql.engine import Database, configure_engine, create_engine
from adk_runtime.sql.errors import translate_errors, upgrade_hint
from adk_runtime.sql.schema import load_all_tables, metadata
from adk_runtime.sql.types import DateTimeUTC, JSONDocument, json_merge
from adk_runtime.sql.url import SQL_SCHEMES, normalize_url

__all__ = [
    "SQL_SCHEMES",
    "Database",
    "DateTimeUTC",
    "JSONDocument",
    "configure_engine",
    "create_engine",
    "json_merge",
    "load_all_tables",
    "metadata",
    "normalize_url",
    "translate_errors",
    "upgrade_hint",
]
