"""Spanner's size limits, checked before anything is sent: a clear error, nothing written.

Spanner refuses a value over 10 MiB (``BYTES(MAX)``: the event JSON and the states are UTF-8
bytes there) and a commit over 100 MB or 80,000 mutations (index entries included). Its
refusals come late (after the transaction's reads) and say little, so the service checks
first:

- **An event over 10 MiB of UTF-8 JSON** is refused with ``SerializationError`` before the
  append sends anything, as any store refuses an event over its limit
  (:data:`adk_runtime.events._limits.MAX_EVENT_BYTES`, 16 Mi characters, is the others').
  We refuse rather than split the JSON into rows of chunks: every event read would then join
  the chunks back (a second table in each session read and each idempotency check) to lift a
  limit few events reach, and a 10 MiB event is already a payload that belongs in an artifact.
  So Spanner's limit is lower than the other stores': 10 MiB of UTF-8 per event (and per
  state: a session's, an app's or a user's state, merged, over 10 MiB is refused the same way).
- **A commit over** :data:`MAX_COMMIT_BYTES` **or** :data:`MAX_MUTATIONS` (a create or an
  import with many large events; a fork copying a long session) is refused with
  ``InputValidationError``: a create or import before anything is sent, a fork after its
  first query (which sums the sizes of the events to copy, before reading them). The estimate
  counts every column of every row, plus its index entries, so it stays under Spanner's own
  limits; such a session can only be made in pieces (create it, then append).
"""

from __future__ import annotations

from collections.abc import Iterable

from adk_runtime.errors import InputValidationError, SerializationError

__all__ = [
    "MAX_COMMIT_BYTES",
    "MAX_MUTATIONS",
    "MAX_VALUE_BYTES",
    "check_commit",
    "check_value",
]

MAX_VALUE_BYTES = 10 * 1024 * 1024
"""Largest value Spanner stores in one cell (``BYTES(MAX)``)."""

MAX_COMMIT_BYTES = 90 * 1000 * 1000
"""Largest estimated commit the service sends (Spanner's limit: 100 MB, index entries and
their overhead included; the estimate leaves 10 % for what it cannot see)."""

MAX_MUTATIONS = 80_000
"""Spanner's limit on mutations per commit (each column of each row, and each index entry)."""

_INDEX_ENTRIES = {"adk_events": 5, "adk_sessions": 16}
"""Estimated mutations a row adds in the table's indexes (their columns)."""


def check_value(name: str, text: str) -> None:
    """Refuse ``text`` (the JSON of ``name``: ``event``, ``state``) if no cell can hold it.

    Raises:
        SerializationError: Over :data:`MAX_VALUE_BYTES` of UTF-8.
    """
    if len(text) * 4 <= MAX_VALUE_BYTES:
        return
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_VALUE_BYTES:
        raise SerializationError(
            name,
            f"it is {size:,} bytes of UTF-8 JSON; Spanner stores at most {MAX_VALUE_BYTES:,} "
            "in one value (keep large payloads in artifacts)",
        )


def check_commit(
    rows: Iterable[tuple[str, int, int]],
    where: str,
    hint: str = "Create a long session with fewer events and append the rest.",
) -> None:
    """Refuse a commit of ``rows`` (table, columns, bytes) that Spanner would refuse.

    Raises:
        InputValidationError: It is over :data:`MAX_COMMIT_BYTES` or :data:`MAX_MUTATIONS`.
    """
    size = mutations = 0
    for table, columns, row_bytes in rows:
        size += row_bytes
        mutations += columns + _INDEX_ENTRIES.get(table, 0)
    if size > MAX_COMMIT_BYTES or mutations > MAX_MUTATIONS:
        raise InputValidationError(
            f"{where} is too large for one Spanner transaction: about {size:,} bytes in "
            f"{mutations:,} mutations (at most {MAX_COMMIT_BYTES:,} bytes and "
            f"{MAX_MUTATIONS:,} mutations); nothing was written. {hint}"
        )
