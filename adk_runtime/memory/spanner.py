"""SpannerMemoryService: remembered events and word search on Cloud Spanner.

**Layout** (step 2 of the Spanner schema, :mod:`adk_runtime.sessions.spanner._schema`): one
``adk_memory_entries`` row per remembered event, keyed by ``(app_name, user_id, session_id,
event_id)`` (the application's own names, so writes spread over the key space), with the
remembered content and custom metadata as JSON in ``BYTES(MAX)`` and the event's distinct
lower-cased words in ``words`` (``ARRAY<STRING>``). The search index ``adk_memory_by_word``
holds the exact tokens of ``words`` (``TOKEN``), partitioned by app and user.

**Search: the same word search as the in-memory store**, not Spanner's full-text search.
The emulator the tests run on has ``TOKENIZE_FULLTEXT``, ``SEARCH`` and ``SCORE``, but only
for ASCII: a query with any other letter (``café``, ``中文``) fails to parse, and such words in
the text are not indexed. So a query is cut into words as on every memory store
(:func:`adk_runtime.memory._text.query_words`: stop words dropped, at most 32 words, nothing
parsed as syntax), an entry matches when it holds one of them literally
(``ARRAY_INCLUDES_ANY``, answered from the search index), and entries are ranked by how many
of the query's words they hold (ties: first remembered first). Words match exactly: no
stemming (``flights`` does not find ``flight``), unlike the PostgreSQL and SQLite stores.

**Writes.** Adding events is one read-write transaction per batch of up to
:data:`BATCH_ROWS` events: one query finds which of them are stored already, one ``Commit``
inserts the others, so adding a session twice, or from two processes at once, duplicates
nothing (two adders conflict, Spanner aborts one, and its retry finds the rows). Forgetting
an entry is two round trips (its keys, then the delete); a search is one read.

**Limits.** An event whose remembered content takes more than 10 MiB (a Spanner cell) is
refused with ``InputValidationError`` before anything is written.
"""

from __future__ import annotations

from collections.abc import Iterator

from google.genai import types

from adk_runtime.errors import InputValidationError
from adk_runtime.memory._text import EventText, decode_metadata, iso_time, words
from adk_runtime.memory.base import EventMemoryService, MemoryEntry
from adk_runtime.sessions.spanner.store import (
    CELL_BYTES,
    COMMIT_TIMESTAMP,
    Blob,
    Param,
    SpannerStore,
    Transaction,
    Write,
)

__all__ = ["BATCH_BYTES", "BATCH_ROWS", "SpannerMemoryService"]

BATCH_ROWS = 1000
"""The most events one transaction remembers (Spanner counts mutations per commit)."""
BATCH_BYTES = 40 * 1024 * 1024
"""About the most bytes of events one transaction remembers (a commit carries 100 MB)."""

_TABLE = "adk_memory_entries"
_COLUMNS = (
    "app_name",
    "user_id",
    "session_id",
    "event_id",
    "author",
    "timestamp",
    "content",
    "custom_metadata",
    "words",
    "remembered_at",
)
_SEARCH = (
    "SELECT content, author, timestamp, event_id, custom_metadata, "
    "(SELECT COUNT(*) FROM UNNEST(words) AS word WHERE word IN UNNEST(@words)) AS hits "
    f"FROM {_TABLE}@{{FORCE_INDEX=adk_memory_by_word}} "
    "WHERE app_name = @app AND user_id = @user AND ARRAY_INCLUDES_ANY(words, @words) "
    "ORDER BY hits DESC, remembered_at, timestamp, session_id, event_id LIMIT @limit"
)


def _batches(found: list[EventText]) -> Iterator[list[EventText]]:
    """``found`` without repeated event ids, in batches one commit can carry."""
    seen: set[str] = set()
    batch: list[EventText] = []
    size = 0
    for item in found:
        event, _text, content = item
        if event.id in seen:
            continue
        seen.add(event.id)
        content_size = len(content.encode())
        if content_size > CELL_BYTES:
            raise InputValidationError(
                f"The content of event {event.id[:40]!r} takes {content_size} bytes; a "
                f"Spanner cell holds at most {CELL_BYTES} (10 MiB)."
            )
        if batch and (len(batch) == BATCH_ROWS or size + content_size > BATCH_BYTES):
            yield batch
            batch, size = [], 0
        batch.append(item)
        size += content_size
    if batch:
        yield batch


class SpannerMemoryService(SpannerStore, EventMemoryService):
    """Memory in the same Spanner database and schema as the sessions (see the module).

    Built as :class:`~adk_runtime.sessions.spanner.store.SpannerStore` is (a database path
    and ``emulator_host``, ``max_sessions``, ``timeout``; or
    ``memory_service_from_url("spanner:///projects/P/…")``), plus:

    Args:
        max_results: The most memories one search returns (the best ones).

    Run ``adk-runtime db upgrade`` (or :meth:`prepare`) once to create the tables.
    """

    def __init__(
        self,
        database: str,
        *,
        emulator_host: str | None = None,
        max_sessions: int = 100,
        timeout: float = 30.0,
        max_results: int = 100,
    ) -> None:
        """Create the service (nothing is sent before the first call)."""
        if isinstance(max_results, bool) or not isinstance(max_results, int) or max_results < 1:
            raise InputValidationError("max_results must be a positive integer.")
        super().__init__(
            database, emulator_host=emulator_host, max_sessions=max_sessions, timeout=timeout
        )
        self.max_results = max_results

    async def _remember(
        self, app_name: str, user_id: str, session_id: str, found: list[EventText], metadata: str
    ) -> None:
        for batch in list(_batches(found)):  # every event is checked before the first write
            await self._remember_batch(app_name, user_id, session_id, batch, metadata)

    async def _remember_batch(
        self, app_name: str, user_id: str, session_id: str, batch: list[EventText], metadata: str
    ) -> None:
        async def body(transaction: Transaction) -> None:
            rows = await transaction.query(
                f"SELECT event_id FROM {_TABLE} WHERE app_name = @app AND user_id = @user "
                "AND session_id = @sid AND event_id IN UNNEST(@ids)",
                {
                    "app": app_name,
                    "user": user_id,
                    "sid": session_id,
                    "ids": [event.id for event, _, _ in batch],
                },
            )
            stored = {row[0] for row in rows}
            transaction.write(
                *(
                    Write(
                        "insert",
                        _TABLE,
                        _COLUMNS,
                        (
                            app_name,
                            user_id,
                            session_id,
                            event.id,
                            event.author,
                            float(event.timestamp),
                            Blob(content),
                            Blob(metadata),
                            sorted(words(text)),
                            COMMIT_TIMESTAMP,
                        ),
                    )
                    for event, text, content in batch
                    if event.id not in stored
                )
            )

        await self._link.transact("remembering events", body)

    async def _forget(self, app_name: str, user_id: str, memory_id: str) -> None:
        async def body(transaction: Transaction) -> None:
            rows = await transaction.query(
                f"SELECT session_id FROM {_TABLE} "
                "WHERE app_name = @app AND user_id = @user AND event_id = @id",
                {"app": app_name, "user": user_id, "id": memory_id},
            )
            transaction.write(
                *(
                    Write("delete", _TABLE, key=(app_name, user_id, row[0], memory_id))
                    for row in rows
                )
            )

        await self._link.transact("forgetting a memory", body)

    async def _recall(self, app_name: str, user_id: str, words: list[str]) -> list[MemoryEntry]:
        params: dict[str, Param] = {
            "app": app_name,
            "user": user_id,
            "words": words,
            "limit": self.max_results,
        }
        rows = await self._link.read(_SEARCH, params)
        return [
            MemoryEntry(
                content=types.Content.model_validate_json(content),
                author=author,
                timestamp=iso_time(timestamp),
                id=event_id,
                custom_metadata=decode_metadata(metadata),
            )
            for content, author, timestamp, event_id, metadata, _hits in rows
        ]
