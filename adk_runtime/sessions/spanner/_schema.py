"""The Spanner schema, and the steps that create and upgrade it (``adk-runtime db``).

**Layout.** A session is one row of ``adk_sessions``, keyed by ``(app_name, user_id,
session_id)``: strings chosen by the application (a uuid4 by default), never a sequence, so
new sessions spread over the key space instead of piling onto its end. Its events are rows
of ``adk_events`` *interleaved* in it (stored beside the session row, in the same split, and
deleted with it by ``ON DELETE CASCADE``), keyed by the per-session sequence; the unique
index ``adk_events_by_id`` (interleaved too) finds an event by id inside its session (the
idempotent append). App and user state are one row each (``adk_app_states``,
``adk_user_states``); a session's own state lives in its row. JSON (events, states) is stored
as UTF-8 in ``BYTES(MAX)`` columns: a cell holds 10 MiB of BYTES, only 2.5 Mi characters of
STRING.

**Indexes.** ``list_sessions`` of one user reads ``adk_sessions_by_user`` (the user's sessions,
newest first). Listing a whole app, or pruning it, reads ``adk_sessions_by_app``, whose key
starts with ``(app_name, shard)``: ``shard`` is a hash of the session's key (``SHARDS``
values), so an index ordered by update time does not take every write of a busy app at one
end of its key range (a hotspot); a listing reads the shards' heads and merges them.
``adk_sessions_by_open_invocation`` holds only sessions with an open invocation
(``NULL_FILTERED``).

**Expiry.** ``adk_sessions.expire_at`` is when a session expires under the idle TTL of the
service that last wrote it (NULL: never); the table's row deletion policy lets Spanner remove
such sessions, with their events, in the background (see :mod:`._expiry`).

**Artifacts and memory** (step 2). ``adk_artifact_heads`` keeps one row per artifact (its
``scope`` is the session id, ``""`` for a ``user:`` file) with ``next_version``, the
high-water mark that survives deletes; its versions are rows of ``adk_artifact_versions``
interleaved in it (keyed by version, the bytes in ``BYTES(MAX)``). ``adk_memory_entries``
holds one row per remembered event, keyed by ``(app_name, user_id, session_id, event_id)``,
with the event's distinct lower-cased words in ``words``; the search index
``adk_memory_by_word`` (exact tokens of ``words``, partitioned by app and user) finds the
entries that hold a word. Neither is interleaved in ``adk_sessions``: artifacts of the user's
scope and memories outlive their sessions.

**Versions.** Each step of :data:`STEPS` is a list of DDL statements, each creating one named
object. :func:`upgrade` applies, step by step, the statements whose object does not exist yet
(so a step cut off half-way is finished by the next run), waits for Spanner to finish them,
and only then records the step's version in ``adk_schema_versions``. Two upgraders at once are
safe: each step's operation has a fixed id (``adk_runtime_v<version>_<count>``) and Spanner
runs one schema change at a time, so the second one's request is refused (a duplicate id, or
a change in progress) and it waits until the first one's objects exist.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
import zlib

import grpc
from google.api_core import exceptions as api_errors
from google.cloud.spanner_admin_database_v1 import UpdateDatabaseDdlRequest
from google.cloud.spanner_admin_database_v1.services.database_admin import (
    DatabaseAdminAsyncClient,
)
from google.cloud.spanner_admin_database_v1.services.database_admin.transports.grpc_asyncio import (
    DatabaseAdminGrpcAsyncIOTransport,
)

from adk_runtime.errors import BackendUnavailableError
from adk_runtime.sessions.spanner._link import Link, Write, translate
from adk_runtime.sessions.spanner._values import COMMIT_TIMESTAMP

__all__ = [
    "EXPIRY_GRACE_DAYS",
    "HEAD",
    "SHARDS",
    "STEPS",
    "SchemaStatus",
    "open_admin",
    "schema_status",
    "shard_of",
    "upgrade",
]

SHARDS = 8
"""Values of ``adk_sessions.shard`` (see the module docstring)."""

EXPIRY_GRACE_DAYS = 1
"""Whole days after a session's ``expire_at`` before Spanner's row deletion policy may remove
it (see :mod:`._expiry`)."""

_KEY = "app_name STRING(128) NOT NULL, user_id STRING(128) NOT NULL, "
_SESSION_KEY = _KEY + "session_id STRING(128) NOT NULL, "
_ARTIFACT_KEY = _KEY + "scope STRING(128) NOT NULL, filename STRING(255) NOT NULL, "
_STAMP = "OPTIONS (allow_commit_timestamp = true)"

STEPS: tuple[tuple[str, ...], ...] = (
    (
        "CREATE TABLE adk_sessions ("
        + _SESSION_KEY
        + "shard INT64 NOT NULL, incarnation STRING(32) NOT NULL, revision INT64 NOT NULL, "
        "state BYTES(MAX) NOT NULL, creation_state BYTES(MAX), "
        f"create_time TIMESTAMP NOT NULL {_STAMP}, update_time TIMESTAMP NOT NULL {_STAMP}, "
        "claim_token INT64 NOT NULL, claim_until TIMESTAMP, claim_took_over BOOL NOT NULL, "
        f"open_invocation STRING(128), open_since TIMESTAMP {_STAMP}, expire_at TIMESTAMP"
        ") PRIMARY KEY (app_name, user_id, session_id), "
        f"ROW DELETION POLICY (OLDER_THAN(expire_at, INTERVAL {EXPIRY_GRACE_DAYS} DAY))",
        "CREATE TABLE adk_events ("
        + _SESSION_KEY
        + "sequence INT64 NOT NULL, event_id STRING(128) NOT NULL, invocation_id STRING(MAX), "
        "timestamp FLOAT64 NOT NULL, payload BYTES(MAX) NOT NULL"
        ") PRIMARY KEY (app_name, user_id, session_id, sequence), "
        "INTERLEAVE IN PARENT adk_sessions ON DELETE CASCADE",
        "CREATE UNIQUE INDEX adk_events_by_id "
        "ON adk_events (app_name, user_id, session_id, event_id), INTERLEAVE IN adk_sessions",
        "CREATE TABLE adk_app_states (app_name STRING(128) NOT NULL, state BYTES(MAX) NOT NULL)"
        " PRIMARY KEY (app_name)",
        "CREATE TABLE adk_user_states (" + _KEY + "state BYTES(MAX) NOT NULL)"
        " PRIMARY KEY (app_name, user_id)",
        "CREATE INDEX adk_sessions_by_user "
        "ON adk_sessions (app_name, user_id, update_time DESC, session_id DESC)",
        "CREATE INDEX adk_sessions_by_app "
        "ON adk_sessions (app_name, shard, update_time DESC, user_id DESC, session_id DESC)",
        "CREATE NULL_FILTERED INDEX adk_sessions_by_open_invocation "
        "ON adk_sessions (app_name, open_invocation) STORING (open_since, claim_until)",
        "CREATE TABLE adk_schema_versions (version INT64 NOT NULL, "
        f"applied_at TIMESTAMP NOT NULL {_STAMP}) PRIMARY KEY (version)",
    ),
    (
        "CREATE TABLE adk_artifact_heads ("
        + _ARTIFACT_KEY
        + "next_version INT64 NOT NULL) PRIMARY KEY (app_name, user_id, scope, filename)",
        "CREATE TABLE adk_artifact_versions ("
        + _ARTIFACT_KEY
        + "version INT64 NOT NULL, mime_type STRING(MAX), size INT64 NOT NULL, "
        "create_time FLOAT64 NOT NULL, part BYTES(MAX) NOT NULL, "
        "custom_metadata BYTES(MAX) NOT NULL, data BYTES(MAX) NOT NULL"
        ") PRIMARY KEY (app_name, user_id, scope, filename, version), "
        "INTERLEAVE IN PARENT adk_artifact_heads ON DELETE CASCADE",
        "CREATE TABLE adk_memory_entries ("
        + _SESSION_KEY
        + "event_id STRING(128) NOT NULL, author STRING(MAX), timestamp FLOAT64 NOT NULL, "
        "content BYTES(MAX) NOT NULL, custom_metadata BYTES(MAX) NOT NULL, "
        f"words ARRAY<STRING(MAX)> NOT NULL, remembered_at TIMESTAMP NOT NULL {_STAMP}, "
        "words_tokens TOKENLIST AS (TOKEN(words)) HIDDEN"
        ") PRIMARY KEY (app_name, user_id, session_id, event_id)",
        "CREATE SEARCH INDEX adk_memory_by_word ON adk_memory_entries (words_tokens) "
        "PARTITION BY app_name, user_id",
    ),
)
"""The schema's steps; step ``n`` (1-based) brings it to version ``n``."""

HEAD = len(STEPS)
"""The newest schema version."""

_NAME = re.compile(
    r"CREATE (?:UNIQUE |NULL_FILTERED |SEARCH )*(?:TABLE|INDEX) (\w+)", re.IGNORECASE
)
_VERSIONS = "adk_schema_versions"


def shard_of(user_id: str, session_id: str) -> int:
    """The ``shard`` of a session (a stable hash of its key, 0 to ``SHARDS - 1``)."""
    return zlib.crc32(f"{user_id}\x00{session_id}".encode()) % SHARDS


def _object(statement: str) -> str:
    found = _NAME.match(statement)
    assert found is not None, statement
    return found.group(1).lower()


@dataclasses.dataclass(frozen=True)
class SchemaStatus:
    """Where a database's schema is: ``current`` (None: no schema) and the newest, ``head``."""

    current: int | None
    head: int = HEAD

    @property
    def up_to_date(self) -> bool:
        """Whether the schema is at the newest version."""
        return self.current == self.head

    @property
    def known(self) -> bool:
        """Whether this version of adk-runtime knows the schema's version."""
        return self.current is None or self.current <= self.head


def open_admin(emulator_host: str | None) -> DatabaseAdminAsyncClient:
    """The database admin client (plain gRPC to an emulator; else default credentials)."""
    if emulator_host:
        channel = grpc.aio.insecure_channel(emulator_host)
        return DatabaseAdminAsyncClient(
            transport=DatabaseAdminGrpcAsyncIOTransport(channel=channel)
        )
    return DatabaseAdminAsyncClient()


async def _existing(admin: DatabaseAdminAsyncClient, database: str) -> set[str]:
    response = await admin.get_database_ddl(database=database, retry=None)
    return {_object(statement) for statement in response.statements if _NAME.match(statement)}


async def schema_status(admin: DatabaseAdminAsyncClient, link: Link) -> SchemaStatus:
    """Read the version the database's schema is at (two round trips)."""
    try:
        if _VERSIONS not in await _existing(admin, link.database):
            return SchemaStatus(None)
    except (api_errors.GoogleAPICallError, grpc.RpcError) as error:
        raise translate(error, "reading the schema") from error
    rows = await link.read(f"SELECT MAX(version) FROM {_VERSIONS}")
    current = rows[0][0] if rows else None
    return SchemaStatus(current)


async def upgrade(admin: DatabaseAdminAsyncClient, link: Link) -> SchemaStatus:
    """Bring the schema to :data:`HEAD` (see the module docstring); safe to run concurrently."""
    status = await schema_status(admin, link)
    for version in range(1, HEAD + 1):
        if status.current is not None and version <= status.current:
            continue
        try:
            await _apply(admin, link.database, version)
        except (api_errors.GoogleAPICallError, grpc.RpcError) as error:
            raise translate(error, f"schema step {version}") from error
        values = (version, COMMIT_TIMESTAMP)
        write = Write("insert_or_update", _VERSIONS, ("version", "applied_at"), values)
        await link.write("recording the schema version", [write])
    return await schema_status(admin, link)


async def _apply(admin: DatabaseAdminAsyncClient, database: str, version: int) -> None:
    statements = STEPS[version - 1]
    for _ in range(1200):  # up to about ten minutes for another upgrader's operation
        existing = await _existing(admin, database)
        missing = [s for s in statements if _object(s) not in existing]
        if not missing:
            return
        request = UpdateDatabaseDdlRequest(
            database=database,
            statements=missing,
            operation_id=f"adk_runtime_v{version}_{len(missing)}",
        )
        try:
            operation = await admin.update_database_ddl(request=request, retry=None)
            await operation.result()  # type: ignore[no-untyped-call]
            continue
        except (api_errors.AlreadyExists, api_errors.FailedPrecondition):
            pass  # another upgrader runs this step (or another change): wait, look again
        await asyncio.sleep(0.5)
    raise BackendUnavailableError(f"Schema step {version} did not finish in ten minutes.")
