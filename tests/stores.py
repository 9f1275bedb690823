"""The test stores, in one place: which backends exist, where their servers are, fresh stores.

- The servers: ``ADK_RUNTIME_TEST_POSTGRES_URL`` and ``ADK_RUNTIME_TEST_REDIS_URL`` (default:
  the local ones). A server that cannot be reached fails the tests that need it (never a skip).
- The Cloud Spanner emulator: one per test process (``tests/spanner_support.py``), started
  for every test marked ``spanner``.
- :data:`DURABLE_BACKENDS`: the durable backends, each with a marker of the same name
  (:func:`durable_params`), so ``pytest -m "not postgres and not redis and not redis_cluster
  and not spanner"`` runs anywhere.
- A :class:`Store` is what a second service object or a subprocess needs to reach the same
  data: the URL and the keyword arguments for :func:`session_service_from_url` (JSON-able, so
  it crosses a process boundary). :func:`fresh_store` makes one and removes it afterwards: a
  SQLite file in a temp dir, a PostgreSQL database created and dropped by the test, or a
  random Redis key prefix whose keys are deleted, or a Spanner database on the emulator with
its schema (created and dropped; the URL names the emulator, so a subprocess reaches it).

The per-test ``session_service`` / ``artifact_service`` fixtures (``tests/backends.py``,
``tests/artifacts/conftest.py``) use the same servers and helpers.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from adk_runtime.sessions import BaseSessionService
from adk_runtime.sessions.registry import session_service_from_url

POSTGRES_URL = os.environ.get(
    "ADK_RUNTIME_TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
)
REDIS_URL = os.environ.get("ADK_RUNTIME_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")

DURABLE_BACKENDS = ("sqlite", "postgres", "redis", "spanner")
"""The durable session backends (and the markers of their tests)."""


@dataclasses.dataclass(frozen=True)
class Store:
    """How to reach one durable store: ``session_service_from_url(url, **kwargs)``."""

    backend: str
    url: str
    kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)

    def open(self) -> BaseSessionService:
        """Build a new service object on this store."""
        return session_service_from_url(self.url, **self.kwargs)

    def to_json(self) -> str:
        """The store as one JSON argument for a subprocess."""
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Store:
        """Parse :meth:`to_json`."""
        return cls(**json.loads(text))


def durable_backends() -> list[str]:
    """Names of the durable backends (SQLite, PostgreSQL, Redis, Spanner)."""
    return list(DURABLE_BACKENDS)


def durable_params() -> list[Any]:
    """``pytest.param`` per durable backend, with its marker (for ``parametrize``)."""
    return [
        pytest.param(name, id=name, marks=[getattr(pytest.mark, name)])
        for name in durable_backends()
    ]


@contextlib.asynccontextmanager
async def fresh_store(backend: str, tmp_path: Path) -> AsyncIterator[Store]:
    """Create an empty store on ``backend``, yield it, then remove everything it holds."""
    if backend == "sqlite":
        path = tmp_path / f"store-{uuid.uuid4().hex[:8]}.db"
        yield Store(backend, f"sqlite+aiosqlite:///{path}")
    elif backend == "postgres":
        async with _postgres_database() as url:
            yield Store(backend, url, _postgres_kwargs())
    elif backend == "redis":
        prefix = f"adkrt-test-{uuid.uuid4().hex[:12]}:"
        try:
            yield Store(backend, REDIS_URL, {"key_prefix": prefix})
        finally:
            await drop_redis_prefix(REDIS_URL, prefix)
    elif backend == "spanner":
        async with _spanner_database() as url:
            yield Store(backend, url)
    else:
        raise ValueError(f"not a durable backend: {backend}")


@contextlib.asynccontextmanager
async def served_store(backend: str, tmp_path: Path) -> AsyncIterator[str]:
    """A fresh store on ``backend`` as a URL ``adk-runtime serve`` takes as it is.

    PostgreSQL is migrated first (serve never migrates a server database; a Spanner store has
    its schema already); Redis gets its key prefix in the query.
    """
    async with fresh_store(backend, tmp_path) as store:
        if backend == "postgres":
            from adk_runtime.sql import Database, create_engine, migrate

            db = Database(create_engine(store.url), owns_engine=True)
            try:
                await migrate.upgrade(db)
            finally:
                await db.dispose()
            yield store.url
        elif backend == "redis":
            yield f"{store.url}?key_prefix={store.kwargs['key_prefix']}"
        else:
            yield store.url


@contextlib.asynccontextmanager
async def _spanner_database() -> AsyncIterator[str]:
    """A new database on this process's emulator, its schema made (``db upgrade``): its URL."""
    from adk_runtime.sessions.spanner import SpannerSessionService
    from tests.spanner_support import current_emulator, fresh_database, spanner_url

    emulator = current_emulator()
    async with fresh_database(emulator) as database:
        url = spanner_url(emulator, database)
        async with SpannerSessionService.from_url(url) as service:
            await service.prepare()
        yield url


def _postgres_kwargs() -> dict[str, Any]:
    return {"auto_migrate": True}


def postgres_admin_dsn(url: str = POSTGRES_URL) -> str:
    """The asyncpg DSN (``postgresql://…``) for a SQLAlchemy-style PostgreSQL URL."""
    _scheme, rest = url.split("://", 1)
    return "postgresql://" + rest


@contextlib.asynccontextmanager
async def _postgres_database(base_url: str = POSTGRES_URL) -> AsyncIterator[str]:
    import asyncpg

    name = f"adkrt_rel_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(postgres_admin_dsn(base_url))
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    head, _, _db = base_url.rpartition("/")
    try:
        yield f"{head}/{name}"
    finally:
        admin = await asyncpg.connect(postgres_admin_dsn(base_url))
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()


async def drop_redis_prefix(url: str, prefix: str) -> None:
    """Delete every key under ``prefix``."""
    from redis.asyncio import Redis

    client = Redis.from_url(url)
    try:
        keys = [key async for key in client.scan_iter(match=f"{prefix}*", count=1000)]
        for start in range(0, len(keys), 500):
            await client.delete(*keys[start : start + 500])
    finally:
        await client.aclose()


def redis_test_prefix() -> str:
    """Return a fresh key prefix, unique to one test."""
    return f"adktest:{uuid.uuid4().hex}:"
