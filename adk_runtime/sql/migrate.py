"""The migration runner: Alembic, driven from async code, safe for many replicas at once.

Alembic owns the schema (``migrations/`` at the top of the source tree, shipped inside the
wheel as ``adk_runtime/_migrations``). Every migration runs in one transaction that first
takes a lock: a PostgreSQL advisory lock, or SQLite's ``BEGIN IMMEDIATE``; so ten replicas
starting at once upgrade the schema once and the others find it current.

Services call :func:`ensure_schema` on first use: SQLite upgrades itself by default
(``auto_migrate``), a server database must be upgraded explicitly and a service that finds
its schema missing or behind raises :class:`~adk_runtime.errors.ConfigurationError` naming
``adk-runtime db upgrade --url …``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import weakref
from importlib import resources
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Connection

from adk_runtime.errors import ConfigurationError, redact_url
from adk_runtime.sql.engine import Database
from adk_runtime.sql.errors import translate_errors, upgrade_hint

__all__ = [
    "MIGRATION_LOCK_ID",
    "SchemaStatus",
    "alembic_config",
    "current_revision",
    "downgrade",
    "ensure_schema",
    "head_revision",
    "lock_for_migrations",
    "migrations_path",
    "schema_status",
    "stamp",
    "upgrade",
]

MIGRATION_LOCK_ID = 0x61646B5F6D6967  # "adk_mig": the PostgreSQL advisory lock key


@dataclasses.dataclass(frozen=True)
class SchemaStatus:
    """Where a database's schema stands.

    Attributes:
        current: The revision the database is at (None: no adk_runtime schema).
        head: The newest revision this version of adk_runtime ships.
        known: Whether ``current`` is a revision this version knows (False: newer code ran).
    """

    current: str | None
    head: str
    known: bool = True

    @property
    def up_to_date(self) -> bool:
        """Whether the database is at the head revision."""
        return self.current == self.head


def migrations_path() -> Path:
    """Locate the migration scripts: inside the installed package, else the source tree."""
    packaged = Path(str(resources.files("adk_runtime"))) / "_migrations"
    if (packaged / "env.py").is_file():
        return packaged
    source = Path(__file__).resolve().parents[2] / "migrations"
    if (source / "env.py").is_file():
        return source
    raise ConfigurationError(
        "adk_runtime's migration scripts are missing (neither adk_runtime/_migrations nor "
        "migrations/ next to the package); reinstall adk-runtime."
    )


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic config for the shipped scripts, bound to ``connection`` if given."""
    config = Config()
    config.set_main_option("script_location", str(migrations_path()))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


@functools.lru_cache(maxsize=1)
def _script() -> ScriptDirectory:
    script = ScriptDirectory.from_config(alembic_config())
    script.get_heads()  # loads every revision file now, not later on the event loop
    return script


def _head() -> str:
    heads = _script().get_heads()
    if len(heads) != 1:
        raise ConfigurationError(f"The migration scripts have {len(heads)} heads; expected 1.")
    return heads[0]


async def head_revision() -> str:
    """The newest revision shipped (the scripts are read in a worker thread, once)."""
    return await asyncio.to_thread(_head)


def lock_for_migrations(connection: Connection) -> None:
    """Serialize migrations: a transaction-scoped advisory lock on PostgreSQL.

    On SQLite the migration transaction is ``BEGIN IMMEDIATE``, which already serializes.
    """
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_ID})


def _current(connection: Connection) -> str | None:
    heads = MigrationContext.configure(connection).get_current_heads()
    return heads[0] if heads else None


async def current_revision(db: Database) -> str | None:
    """The revision the database is at, or None when it has no adk_runtime schema."""
    async with db.autocommit() as connection:
        return await connection.run_sync(_current)


async def schema_status(db: Database) -> SchemaStatus:
    """Compare the database's revision with the newest one shipped."""
    head = await head_revision()
    current = await current_revision(db)
    known = current is None or await asyncio.to_thread(_is_known, current)
    return SchemaStatus(current=current, head=head, known=known)


def _is_known(revision: str) -> bool:
    try:
        return _script().get_revision(revision) is not None
    except Exception:  # alembic raises several types for an unknown id
        return False


# Alembic's `context` and `op` are module globals: one migration at a time per process.
# (Across processes the advisory lock / BEGIN IMMEDIATE serializes them.)
_PROCESS_LOCKS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
    weakref.WeakKeyDictionary()
)


def _process_lock() -> asyncio.Lock:
    loop = asyncio.get_running_loop()
    lock = _PROCESS_LOCKS.get(loop)
    if lock is None:
        lock = _PROCESS_LOCKS[loop] = asyncio.Lock()
    return lock


async def _run(db: Database, action: Any, revision: str) -> None:
    await asyncio.to_thread(_head)
    async with _process_lock():
        with translate_errors(db.url):
            await _run_locked(db, action, revision)


async def _run_locked(db: Database, action: Any, revision: str) -> None:

    def run(connection: Connection) -> None:
        action(alembic_config(connection), revision)

    async with db.exclusive(), db.engine.connect() as connection:
        if db.dialect == "sqlite":
            # Batch migrations recreate tables; with foreign keys on, dropping a parent
            # table would cascade into its children. The pragma only works outside a
            # transaction, so it is set before BEGIN IMMEDIATE and restored after.
            await connection.execution_options(adk_sqlite_begin=None)
            await connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
            await connection.commit()
            await connection.execution_options(adk_sqlite_begin="IMMEDIATE")
        try:
            async with connection.begin():
                await connection.run_sync(run)
        finally:
            if db.dialect == "sqlite":
                await connection.execution_options(adk_sqlite_begin=None)
                await connection.exec_driver_sql("PRAGMA foreign_keys=ON")
                await connection.commit()


async def upgrade(db: Database, revision: str = "head") -> None:
    """Upgrade the schema to ``revision`` (default: the newest), in one locked transaction."""
    await _run(db, command.upgrade, revision)


async def downgrade(db: Database, revision: str) -> None:
    """Downgrade the schema to ``revision`` (``"base"`` removes every adk_runtime table)."""
    await _run(db, command.downgrade, revision)


async def stamp(db: Database, revision: str = "head") -> None:
    """Record ``revision`` as current without running migrations (for adopted schemas)."""
    await _run(db, functools.partial(command.stamp, purge=True), revision)


async def ensure_schema(db: Database, *, auto_migrate: bool) -> None:
    """Make sure the schema is current: upgrade it (``auto_migrate``) or say how to.

    Raises:
        ConfigurationError: The schema is missing or behind and ``auto_migrate`` is off, or
            the database was migrated by a newer adk_runtime.
    """
    status = await schema_status(db)
    if status.up_to_date:
        return
    if not status.known:
        raise ConfigurationError(
            f"The database at {redact_url(db.url)} is at schema revision {status.current!r}, "
            "which this version of adk_runtime does not know; upgrade adk-runtime."
        )
    if not auto_migrate:
        where = "has no adk_runtime schema" if status.current is None else "has an old schema"
        raise ConfigurationError(
            f"The database at {redact_url(db.url)} {where} (revision {status.current!r}, "
            f"needs {status.head!r}). Run: {upgrade_hint(db.url)}"
        )
    await upgrade(db)
