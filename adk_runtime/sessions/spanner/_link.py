"""The service's line to Spanner: the async client, a pool of sessions, reads and transactions.

Everything goes through google-cloud-spanner's generated asyncio client
(``SpannerAsyncClient`` over ``grpc.aio``), one RPC per round trip:

- :meth:`Link.read` is one ``ExecuteStreamingSql`` (:mod:`._stream`: no 10 MiB limit on a
  result) in a single-use, strong read-only transaction.
- :meth:`Link.transact` runs a read-write transaction: its first query begins the transaction
  inline (no ``BeginTransaction`` round trip) and the body's buffered mutations go out with
  ``Commit``; a body that only writes commits in one ``Commit`` with a single-use transaction.
  An ``ABORTED`` transaction (Spanner aborts one of two conflicting transactions) is run again
  from the start, so each attempt re-reads what it checks: an append retried this way finds
  its own event id if an earlier attempt committed, and is never written twice.

A Spanner *session* carries one transaction at a time; the pool keeps up to ``max_sessions``
of them (created on demand with ``BatchCreateSessions``, deleted by :meth:`Link.close`) and a
call waits for a free one. A session the server dropped (idle for an hour) is replaced.

The client and its sessions belong to the event loop that created them (``grpc.aio``); a call
from another loop (``Runner.run`` runs each call on a loop of its own) opens a new client for
that loop, and the old one is dropped.

Driver errors become adk_runtime errors here and only here (:func:`translate`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import random
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar

import grpc
from google.api_core import exceptions as api_errors
from google.cloud.spanner_v1 import (
    BatchCreateSessionsRequest,
    CommitRequest,
    CommitResponse,
    ExecuteSqlRequest,
    Mutation,
    PartialResultSet,
    TransactionOptions,
    TransactionSelector,
)
from google.cloud.spanner_v1.services.spanner import SpannerAsyncClient
from google.cloud.spanner_v1.services.spanner.transports.grpc_asyncio import (
    SpannerGrpcAsyncIOTransport,
)

from adk_runtime.errors import (
    AdkRuntimeError,
    AlreadyExistsError,
    BackendUnavailableError,
    ConfigurationError,
)
from adk_runtime.sessions.spanner._limits import check_commit
from adk_runtime.sessions.spanner._stream import Rows
from adk_runtime.sessions.spanner._values import Param, Value, encode_params, encode_values

__all__ = ["Link", "Transaction", "Write", "translate"]

T = TypeVar("T")

_READ_WRITE = TransactionOptions(read_write=TransactionOptions.ReadWrite())
_STRONG_READ = TransactionSelector(
    single_use=TransactionOptions(read_only=TransactionOptions.ReadOnly(strong=True))
)
_ABORT_DEADLINE = 30.0  # seconds an aborted transaction is retried for
_SESSIONS_PER_BATCH = 10
_UNLIMITED = [("grpc.max_send_message_length", -1), ("grpc.max_receive_message_length", -1)]
"""Channel options: no message size limit of gRPC's own (an event is up to 16 MiB of JSON)."""


@dataclasses.dataclass(frozen=True)
class Write:
    """One buffered mutation: ``kind`` is insert, update, insert_or_update, replace or delete.

    ``replace`` writes the row anew, deleting the one there (and its interleaved rows, ``ON
    DELETE CASCADE``).
    """

    kind: str
    table: str
    columns: tuple[str, ...] = ()
    values: tuple[Value, ...] = ()
    key: tuple[Param, ...] = ()

    def cost(self) -> tuple[str, int, int]:
        """The table, the columns written and an estimate of the bytes (for :mod:`._limits`)."""
        values = self.key if self.kind == "delete" else self.values
        size = 0
        for value in values:
            size += len(value.encode()) if isinstance(value, str) else 8
        return self.table, max(len(self.columns), 1), size

    def mutation(self) -> Mutation:
        if self.kind == "delete":
            keys = Mutation.Delete(
                table=self.table,
                key_set={"keys": [encode_values(self.key)]},
            )
            return Mutation(delete=keys)
        row = encode_values(self.values)
        write = Mutation.Write(table=self.table, columns=list(self.columns), values=[row])
        if self.kind == "insert":
            return Mutation(insert=write)
        if self.kind == "update":
            return Mutation(update=write)
        if self.kind == "replace":
            return Mutation(replace=write)
        assert self.kind == "insert_or_update", self.kind
        return Mutation(insert_or_update=write)


def translate(error: BaseException, where: str) -> BaseException:
    """The adk_runtime error for a google-api-core / gRPC error (others pass through)."""
    if isinstance(error, api_errors.AlreadyExists):
        return AlreadyExistsError(f"{where}: the row already exists.")
    if isinstance(
        error,
        (
            api_errors.ServiceUnavailable,
            api_errors.DeadlineExceeded,
            api_errors.InternalServerError,
            api_errors.Unknown,
            api_errors.Cancelled,
            api_errors.ResourceExhausted,
            api_errors.RetryError,
            grpc.RpcError,
            OSError,
        ),
    ):
        detail = type(error).__name__
        return BackendUnavailableError(f"Spanner did not complete {where} ({detail}).")
    if isinstance(error, (api_errors.PermissionDenied, api_errors.Unauthenticated)):
        return ConfigurationError(f"Spanner refused {where}: {error.message}")
    if isinstance(error, api_errors.NotFound) and "Database not found" in str(error.message):
        return ConfigurationError(f"Spanner database not found ({where}); create it first.")
    return error


def _session_gone(error: BaseException) -> bool:
    return isinstance(error, api_errors.NotFound) and "Session not found" in str(error.message)


class Transaction:
    """One attempt of a read-write transaction (see :meth:`Link.transact`)."""

    def __init__(self, link: _Connection, session: str, where: str) -> None:
        self.where = where
        """What the transaction does (for errors)."""
        self._link = link
        self._session = session
        self._id: bytes | None = None
        self._writes: list[Write] = []
        self.round_trips = 0
        self.commit_micros: int | None = None
        """The commit timestamp (microseconds) once committed with writes."""

    async def query(
        self, sql: str, params: Mapping[str, Param] | None = None, *, binary: bool = False
    ) -> list[list[Any]]:
        """Run ``sql`` in the transaction (the first query begins it) and return its rows.

        BYTES columns come back as text, or as ``bytes`` when ``binary``.
        """
        fields, types = encode_params(params or {})
        selector = (
            TransactionSelector(begin=_READ_WRITE)
            if self._id is None
            else TransactionSelector(id=self._id)
        )
        request = ExecuteSqlRequest(
            session=self._session,
            sql=sql,
            params=fields,
            param_types=types,
            transaction=selector,
        )
        self.round_trips += 1
        rows = Rows(binary=binary)
        try:
            return await rows.read(await self._link.stream(request))
        finally:
            if self._id is None:
                self._id = rows.transaction_id

    def write(self, *writes: Write) -> None:
        """Buffer mutations for the commit."""
        self._writes.extend(writes)

    async def _finish(self) -> None:
        if not self._writes:
            if self._id is not None:
                await self._rollback()
            return
        check_commit((write.cost() for write in self._writes), self.where)
        request = CommitRequest(
            session=self._session, mutations=[write.mutation() for write in self._writes]
        )
        if self._id is None:
            request.single_use_transaction = _READ_WRITE
        else:
            request.transaction_id = self._id
        self.round_trips += 1
        response = await self._link.client.commit(
            request=request, retry=None, timeout=self._link.timeout, metadata=self._link.metadata
        )
        stamp = CommitResponse.pb(response).commit_timestamp
        self.commit_micros = stamp.seconds * 1_000_000 + stamp.nanos // 1000

    async def _rollback(self) -> None:
        if self._id is None:
            return
        self.round_trips += 1
        with contextlib.suppress(api_errors.GoogleAPICallError, grpc.RpcError):
            await self._link.client.rollback(
                session=self._session,
                transaction_id=self._id,
                retry=None,
                timeout=self._link.timeout,
                metadata=self._link.metadata,
            )


class _Connection:
    """The client and session pool of one event loop."""

    def __init__(
        self, database: str, emulator_host: str | None, max_sessions: int, timeout: float
    ) -> None:
        self.database = database
        self.timeout = timeout
        self.metadata = (("google-cloud-resource-prefix", database),)
        if emulator_host:
            channel = grpc.aio.insecure_channel(emulator_host, options=_UNLIMITED)
            self.client = SpannerAsyncClient(transport=SpannerGrpcAsyncIOTransport(channel=channel))
        else:
            self.client = SpannerAsyncClient()
        self._free: list[str] = []
        self._slots = asyncio.Semaphore(max_sessions)
        self._all: set[str] = set()

    async def stream(self, request: ExecuteSqlRequest) -> AsyncIterable[PartialResultSet]:
        """Send ``request`` as ``ExecuteStreamingSql`` (one RPC; see :mod:`._stream`)."""
        return await self.client.execute_streaming_sql(
            request=request, retry=None, timeout=self.timeout, metadata=self.metadata
        )

    async def _new_sessions(self) -> None:
        request = BatchCreateSessionsRequest(
            database=self.database, session_count=_SESSIONS_PER_BATCH
        )
        response = await self.client.batch_create_sessions(
            request=request, retry=None, timeout=self.timeout, metadata=self.metadata
        )
        for session in response.session:
            self._free.append(session.name)
            self._all.add(session.name)

    @contextlib.asynccontextmanager
    async def session(self) -> AsyncIterator[str]:
        async with self._slots:
            if not self._free:
                await self._new_sessions()
            name = self._free.pop()
            healthy = True
            try:
                yield name
            except BaseException as error:
                healthy = not _session_gone(error)
                raise
            finally:
                if healthy:
                    self._free.append(name)
                else:
                    self._all.discard(name)

    async def close(self) -> None:
        names, self._all, self._free = list(self._all), set(), []
        for name in names:
            with contextlib.suppress(api_errors.GoogleAPICallError, grpc.RpcError):
                await self.client.delete_session(
                    name=name, retry=None, timeout=self.timeout, metadata=self.metadata
                )
        await self.client.transport.close()  # type: ignore[no-untyped-call]


class Link:
    """Reads and read-write transactions on one Spanner database (see the module docstring)."""

    def __init__(
        self,
        database: str,
        *,
        emulator_host: str | None,
        max_sessions: int,
        timeout: float,
    ) -> None:
        """Point at ``database`` (``projects/P/instances/I/databases/D``); connects lazily."""
        self.database = database
        self._emulator_host = emulator_host
        self._max_sessions = max_sessions
        self._timeout = timeout
        self._connection: _Connection | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.round_trips = 0
        """RPCs sent for reads and transactions (a counter for tests and benchmarks)."""
        self.aborted = 0
        """Transaction attempts Spanner aborted (each was run again)."""

    def _current(self) -> _Connection:
        loop = asyncio.get_running_loop()
        if self._connection is None or self._loop is not loop:
            self._connection = _Connection(
                self.database, self._emulator_host, self._max_sessions, self._timeout
            )
            self._loop = loop
        return self._connection

    async def read(
        self, sql: str, params: Mapping[str, Param] | None = None, *, binary: bool = False
    ) -> list[list[Any]]:
        """Run ``sql`` as a strong single-use read (one round trip) and return its rows.

        BYTES columns come back as text, or as ``bytes`` when ``binary``.
        """
        fields, types = encode_params(params or {})
        for _ in range(3):  # a session the server dropped is replaced
            connection = self._current()
            try:
                async with connection.session() as session:
                    request = ExecuteSqlRequest(
                        session=session,
                        sql=sql,
                        params=fields,
                        param_types=types,
                        transaction=_STRONG_READ,
                    )
                    self.round_trips += 1
                    return await Rows(binary=binary).read(await connection.stream(request))
            except (api_errors.GoogleAPICallError, grpc.RpcError, OSError) as error:
                if _session_gone(error):
                    continue
                raise translate(error, "a read") from error
        raise BackendUnavailableError("Spanner kept dropping its sessions.")

    async def transact(
        self, where: str, body: Callable[[Transaction], Awaitable[T]]
    ) -> tuple[T, int | None]:
        """Run ``body`` in a read-write transaction, again from the start when aborted.

        Returns what ``body`` returned and the commit timestamp in microseconds (None when
        it buffered no write: nothing was committed). An exception from ``body`` rolls the
        transaction back and propagates.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + _ABORT_DEADLINE
        pause = 0.01
        while True:
            connection = self._current()
            try:
                return await self._attempt(connection, body, where)
            except api_errors.Aborted as error:
                self.aborted += 1
                if loop.time() >= deadline:
                    raise BackendUnavailableError(
                        f"Spanner kept aborting {where} for {_ABORT_DEADLINE:.0f} s."
                    ) from error
            except (api_errors.GoogleAPICallError, grpc.RpcError, OSError) as error:
                if not _session_gone(error):
                    raise translate(error, where) from error
            await asyncio.sleep(pause * random.uniform(0.5, 1.0))
            pause = min(pause * 2, 0.5)

    async def _attempt(
        self, connection: _Connection, body: Callable[[Transaction], Awaitable[T]], where: str
    ) -> tuple[T, int | None]:
        async with connection.session() as session:
            transaction = Transaction(connection, session, where)
            try:
                result = await body(transaction)
                await transaction._finish()
            except BaseException as error:
                if not isinstance(error, api_errors.Aborted):
                    await _shielded(transaction._rollback())
                raise
            finally:
                self.round_trips += transaction.round_trips
            return result, transaction.commit_micros

    async def write(self, where: str, writes: Sequence[Write]) -> int:
        """Commit ``writes`` blind, in one round trip; return the commit time (microseconds)."""

        async def body(transaction: Transaction) -> None:
            transaction.write(*writes)

        _, stamp = await self.transact(where, body)
        assert stamp is not None
        return stamp

    async def close(self) -> None:
        """Delete the pool's sessions and close the client (if it was opened on this loop)."""
        connection, self._connection = self._connection, None
        if connection is None:
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            return
        if self._loop is running:
            await connection.close()


async def _shielded(call: Awaitable[None]) -> None:
    with contextlib.suppress(AdkRuntimeError):
        await asyncio.shield(call)
