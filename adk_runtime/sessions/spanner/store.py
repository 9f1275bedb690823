"""What the Spanner artifact and memory stores share with the session store: one database.

:class:`SpannerDatabase` is the line to Spanner
(:class:`~adk_runtime.sessions.spanner._link.Link`: the async client, the session pool, reads,
transactions retried when Spanner aborts them, the one place driver errors are translated), the
schema (:meth:`SpannerDatabase.prepare` runs the same steps as ``adk-runtime db upgrade``) and
the closing; :class:`SpannerStore` adds the building from a ``spanner://`` URL and the context
manager. The session service builds on the first, the artifact and memory services on the
second, so all three reach Spanner the same way; their tables are steps of the same schema.
"""

from __future__ import annotations

from typing import Any

from typing_extensions import Self

from adk_runtime.sessions.spanner import _options
from adk_runtime.sessions.spanner._link import Link, Transaction, Write
from adk_runtime.sessions.spanner._options import store_url
from adk_runtime.sessions.spanner._schema import SchemaStatus, open_admin, schema_status, upgrade
from adk_runtime.sessions.spanner._values import COMMIT_TIMESTAMP, Blob, Param

__all__ = [
    "CELL_BYTES",
    "COMMIT_TIMESTAMP",
    "Blob",
    "Link",
    "Param",
    "SpannerDatabase",
    "SpannerStore",
    "Transaction",
    "Write",
    "store_url",
]

CELL_BYTES = 10 * 1024 * 1024
"""The most bytes one Spanner cell holds (a ``BYTES(MAX)`` value): 10 MiB."""


class SpannerDatabase:
    """One Spanner database: the line to it, its schema, its URL (see the module docstring).

    Args:
        database: ``projects/P/instances/I/databases/D``.
        emulator_host: ``host:port`` of a Spanner emulator (plain gRPC, no credentials);
            None: ``$SPANNER_EMULATOR_HOST`` if set, else Spanner itself with the application
            default credentials.
        max_sessions: Spanner sessions the service keeps at most (one transaction or read
            each at a time); a call beyond them waits for a free one.
        timeout: Seconds one RPC may take before it fails with ``BackendUnavailableError``.

    Raises:
        ConfigurationError: The database path or an option is malformed.
    """

    def __init__(
        self,
        database: str,
        *,
        emulator_host: str | None = None,
        max_sessions: int = 100,
        timeout: float = 30.0,
    ) -> None:
        """Create the service (nothing is sent before the first call)."""
        self.database = _options.database_path(database)
        self._emulator_host = _options.emulator_host(emulator_host)
        self._link = Link(
            self.database,
            emulator_host=self._emulator_host,
            max_sessions=_options.positive_int("max_sessions", max_sessions),
            timeout=_options.positive_float("timeout", timeout),
        )

    @property
    def url(self) -> str:
        """The URL of this store (``spanner:///…``, with the emulator host when one is used)."""
        query = f"?emulator_host={self._emulator_host}" if self._emulator_host else ""
        return f"spanner:///{self.database}{query}"

    @property
    def round_trips(self) -> int:
        """RPCs this service object sent so far (for tests and benchmarks)."""
        return self._link.round_trips

    async def prepare(self) -> SchemaStatus:
        """Create or upgrade the schema (as ``adk-runtime db upgrade``); safe to repeat."""
        admin = open_admin(self._emulator_host)
        try:
            return await upgrade(admin, self._link)
        finally:
            await admin.transport.close()  # type: ignore[no-untyped-call]

    async def schema_status(self) -> SchemaStatus:
        """The schema's version and the newest one (as ``adk-runtime db check``)."""
        admin = open_admin(self._emulator_host)
        try:
            return await schema_status(admin, self._link)
        finally:
            await admin.transport.close()  # type: ignore[no-untyped-call]

    async def close(self) -> None:
        """Delete the service's Spanner sessions and close its client."""
        await self._link.close()


class SpannerStore(SpannerDatabase):
    """A store service on one Spanner database, built from a URL, closed as a context."""

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> Self:
        """Build the service for ``spanner:///projects/P/instances/I/databases/D?options``.

        The query may set ``emulator_host``, ``max_sessions`` and ``timeout`` (any other name
        is refused); keyword arguments win.
        """
        database, options = _options.split_url(url, _options.STORE_OPTIONS)
        return cls(database, **{**options, **kwargs})

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()
