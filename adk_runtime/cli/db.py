"""``adk-runtime db``: create and upgrade the SQL or Spanner schema (from the installed package).

The URL comes from ``--url`` or ``ADK_RUNTIME_SESSION_URL``; it is redacted in all output.
``check`` exits with status 1 when the schema is missing or behind, so deploy scripts can
gate on it. A user mistake (bad URL, unreachable server) prints one error line, no traceback.
A store that has no schema (Redis, ``memory://``) is said to need none, and every command on
it succeeds doing nothing, so one deploy script serves every store.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import click
from rich.console import Console

from adk_runtime._url_registry import REDIS_SCHEMES, url_scheme
from adk_runtime.errors import AdkRuntimeError, BackendUnavailableError, redact_url

if TYPE_CHECKING:
    from adk_runtime.sessions.spanner import SchemaStatus

T = TypeVar("T")

_console = Console(highlight=False, soft_wrap=True)
_url_option = click.option(
    "--url",
    envvar="ADK_RUNTIME_SESSION_URL",
    required=True,
    help="Database URL, e.g. sqlite+aiosqlite:///app.db, postgresql+asyncpg://user@host/db or "
    "spanner:///projects/P/instances/I/databases/D (default: $ADK_RUNTIME_SESSION_URL).",
)


def _run(url: str, action: Callable[..., Awaitable[T]], *args: str) -> T:
    # Imported here so `adk-runtime --help` does not load SQLAlchemy and Alembic.
    from adk_runtime.sql import Database, create_engine
    from adk_runtime.sql.url import SESSION_OPTIONS

    async def run() -> T:
        db = Database(create_engine(url, service_options=SESSION_OPTIONS), owns_engine=True)
        try:
            return await action(db, *args)
        finally:
            await db.dispose()

    try:
        return asyncio.run(run())
    except BackendUnavailableError as error:
        raise click.ClickException(_unreachable(url, error)) from None
    except AdkRuntimeError as error:
        raise click.ClickException(str(error)) from None


def _unreachable(url: str, error: BackendUnavailableError) -> str:
    """Say which server could not be reached (host and port, never the password)."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_backend_name() != "postgresql":
        return str(error)
    cause = f" ({type(error.__cause__).__name__})" if error.__cause__ else ""
    where = f"{parsed.host or 'localhost'}:{parsed.port or 5432}"
    return (
        f"Cannot connect to {redact_url(url)}{cause}: is the PostgreSQL server running at "
        f"{where}? Check the host, the port and that it accepts connections from here."
    )


_SCHEMALESS = {**dict.fromkeys((*REDIS_SCHEMES, "unix"), "Redis"), "memory": "An in-memory store"}


def _spanner_status(url: str, upgrade: bool) -> SchemaStatus:
    """Upgrade (or only read) the schema of a ``spanner://`` store; its status after."""
    from adk_runtime.sessions.registry import session_service_from_url

    async def run() -> SchemaStatus:
        service = session_service_from_url(url)  # a missing extra: one line saying so
        from adk_runtime.sessions.spanner import SpannerSessionService

        assert isinstance(service, SpannerSessionService)
        async with service:
            return await (service.prepare() if upgrade else service.schema_status())

    try:
        return asyncio.run(run())
    except AdkRuntimeError as error:
        raise click.ClickException(str(error)) from None


def _spanner(url: str, command: str) -> bool:
    """Run ``command`` (upgrade, check, current) on a Spanner store; False: not one."""
    if url_scheme(url) != "spanner":
        return False
    status = _spanner_status(url, upgrade=command == "upgrade")
    where = redact_url(url)
    if command == "upgrade":
        _console.print(f"[green]✓[/] {where} is at schema version [bold]{status.current}[/].")
    elif command == "current":
        marker = " (newest)" if status.up_to_date else f" (newest: {status.head})"
        _console.print(f"{status.current or 'none'}{marker}")
    elif status.up_to_date:
        _console.print(f"[green]✓[/] {where} is up to date ({status.head}).")
    elif not status.known:
        _console.print(
            f"[red]✗[/] {where} is at schema version {status.current}, unknown to this "
            "version of adk-runtime; upgrade adk-runtime."
        )
        raise SystemExit(2)
    else:
        _console.print(
            f"[yellow]✗[/] {where} is behind: at {status.current or 'no schema'}, newest "
            f"{status.head}. Run: adk-runtime db upgrade --url {where}"
        )
        raise SystemExit(1)
    return True


def _needs_no_schema(url: str, what: str) -> bool:
    """Say so, and return True, when ``url`` names a store without a schema (Redis, memory)."""
    kind = _SCHEMALESS.get(url_scheme(url))
    if kind is None:
        return False
    _console.print(
        f"[green]✓[/] {redact_url(url)}: {kind} needs no schema (adk-runtime db is for SQLite "
        f"and PostgreSQL); nothing to {what}."
    )
    return True


def _require_sqlite_file(url: str) -> None:
    """Refuse a SQLite path that does not exist (opening it would create an empty file)."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    path = parsed.database or ""
    if (
        parsed.get_backend_name() != "sqlite"
        or path in ("", ":memory:")
        or path.startswith("file:")
    ):
        return
    if not Path(path).expanduser().exists():
        raise click.ClickException(
            f"The SQLite file {path} does not exist (nothing was created). Check the path, or "
            f"create the schema there with: adk-runtime db upgrade --url {redact_url(url)}"
        )


@click.group()
def db() -> None:
    """Create, upgrade and inspect the schema (SQLite, PostgreSQL, Spanner)."""


@db.command()
@_url_option
@click.option("--revision", default="head", show_default=True, help="Target revision.")
def upgrade(url: str, revision: str) -> None:
    """Upgrade the schema (safe to run from many replicas at once)."""
    from adk_runtime.sql import Database, migrate

    if _needs_no_schema(url, "upgrade") or _spanner(url, "upgrade"):
        return

    async def action(database: Database, target: str) -> migrate.SchemaStatus:
        await migrate.upgrade(database, target)
        return await migrate.schema_status(database)

    status = _run(url, action, revision)
    _console.print(
        f"[green]✓[/] {redact_url(url)} is at revision [bold]{status.current}[/] "
        f"(newest: {status.head})."
    )


@db.command()
@_url_option
def check(url: str) -> None:
    """Exit with status 1 unless the schema is at the newest revision."""
    from adk_runtime.sql import migrate
    from adk_runtime.sql.errors import upgrade_hint

    if _needs_no_schema(url, "check") or _spanner(url, "check"):
        return
    _require_sqlite_file(url)
    status = _run(url, migrate.schema_status)
    if status.up_to_date:
        _console.print(f"[green]✓[/] {redact_url(url)} is up to date ({status.head}).")
        return
    if not status.known:
        _console.print(
            f"[red]✗[/] {redact_url(url)} is at revision {status.current}, unknown to this "
            "version of adk-runtime; upgrade adk-runtime."
        )
        raise SystemExit(2)
    _console.print(
        f"[yellow]✗[/] {redact_url(url)} is behind: at {status.current or 'no schema'}, "
        f"newest {status.head}. Run: {upgrade_hint(url)}"
    )
    raise SystemExit(1)


@db.command()
@_url_option
def current(url: str) -> None:
    """Print the schema revision the database is at."""
    from adk_runtime.sql import migrate

    if _needs_no_schema(url, "report") or _spanner(url, "current"):
        return
    _require_sqlite_file(url)
    status = _run(url, migrate.schema_status)
    marker = " (newest)" if status.up_to_date else f" (newest: {status.head})"
    _console.print(f"{status.current or 'none'}{marker}")


@db.command()
@_url_option
@click.argument("revision", default="head")
def stamp(url: str, revision: str) -> None:
    """Record REVISION as current without running migrations (default: head)."""
    from adk_runtime.sql import Database, migrate

    async def action(database: Database, target: str) -> migrate.SchemaStatus:
        await migrate.stamp(database, target)
        return await migrate.schema_status(database)

    if _needs_no_schema(url, "stamp"):
        return
    _require_sqlite_file(url)
    status = _run(url, action, revision)
    _console.print(
        f"[green]✓[/] {redact_url(url)} stamped at revision [bold]{status.current}[/] "
        f"(newest: {status.head})."
    )
