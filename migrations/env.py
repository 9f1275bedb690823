"""Alembic environment for adk_runtime (async engines; batch mode on SQLite).

The database URL comes from ``-x url=…`` or the ``ADK_RUNTIME_SESSION_URL`` environment
variable (never from a file). ``adk-runtime db …`` passes its own connection instead.
Every run takes the migration lock first (see ``adk_runtime.sql.migrate``).
"""

from __future__ import annotations

import asyncio
import os

from alembic import context
from sqlalchemy.engine import Connection

from adk_runtime.errors import ConfigurationError
from adk_runtime.sql.engine import create_engine
from adk_runtime.sql.migrate import lock_for_migrations
from adk_runtime.sql.schema import include_object, load_all_tables
from adk_runtime.sql.url import SESSION_OPTIONS

config = context.config
target_metadata = load_all_tables()


def _url() -> str:
    url = context.get_x_argument(as_dictionary=True).get("url") or os.environ.get(
        "ADK_RUNTIME_SESSION_URL"
    )
    if not url:
        raise ConfigurationError("No database URL: pass -x url=URL or set ADK_RUNTIME_SESSION_URL.")
    return url


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
        include_object=include_object,
    )
    with context.begin_transaction():
        lock_for_migrations(connection)
        context.run_migrations()


async def _run_async() -> None:
    engine = create_engine(_url(), service_options=SESSION_OPTIONS)
    try:
        async with engine.connect() as connection:
            await connection.run_sync(_run)
            await connection.commit()
    finally:
        await engine.dispose()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
    else:
        asyncio.run(_run_async())


if context.is_offline_mode():
    raise ConfigurationError("Offline (--sql) migrations are not supported; pass a database URL.")
run_migrations_online()
