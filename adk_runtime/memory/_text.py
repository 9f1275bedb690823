"""What of an event is remembered, and how a query is cut into words (every memory store)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from google.genai import types

from adk_runtime import codec
from adk_runtime.errors import InputValidationError
from adk_runtime.events import Event
from adk_runtime.events._credential_secrets import is_credential_part
from adk_runtime.sessions._validation import validate_id

__all__ = [
    "MAX_QUERY_WORDS",
    "STOP_WORDS",
    "EventText",
    "decode_metadata",
    "encode_metadata",
    "event_text",
    "iso_time",
    "query_words",
    "remembered_content",
    "texts_of",
    "words",
]

MAX_QUERY_WORDS = 32
"""A query's first 32 distinct words are searched; the rest are ignored."""

MAX_QUERY_LENGTH = 10_000

EventText = tuple[Event, str, str]
"""An event worth remembering, its text and its content as stored JSON."""


_STOP_WORDS_TEXT = """
    a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is it its
    itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own s same she should so some such t than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself yourselves
"""
STOP_WORDS = frozenset(_STOP_WORDS_TEXT.split())
"""English words too common to search for: dropped from queries on every memory store."""

_WORD = re.compile(r"\w+", re.UNICODE)
_UNSTORABLE = re.compile(r"[\x00\ud800-\udfff]")


def words(text: str) -> set[str]:
    """Return the lower-cased words of ``text``."""
    return {word.lower() for word in _WORD.findall(text)}


def query_words(query: object) -> list[str]:
    """Return the distinct lower-cased words of a query, in order, at most MAX_QUERY_WORDS.

    Everything that is not a letter, a digit or ``_`` separates words, so quotes, ``*``,
    ``:``, ``-`` and the like never reach a full-text engine as syntax. :data:`STOP_WORDS` are
    dropped (they would match nearly everything).
    """
    if not isinstance(query, str):
        raise InputValidationError(f"query must be a string, not {type(query).__name__}.")
    if len(query) > MAX_QUERY_LENGTH:
        raise InputValidationError(f"query is longer than {MAX_QUERY_LENGTH} characters.")
    seen: dict[str, None] = {}
    for word in _WORD.findall(query):
        lowered = word.lower()
        if lowered not in STOP_WORDS:
            seen.setdefault(lowered, None)
    return list(seen)[:MAX_QUERY_WORDS]


def event_text(event: Event) -> str:
    """Return the text parts of an event joined by spaces ("" when it has none)."""
    if event.content is None or not event.content.parts:
        return ""
    return " ".join(part.text for part in event.content.parts if part.text)


def iso_time(timestamp: float) -> str:
    """Return a Unix timestamp as ISO-8601 in UTC (how memory entries carry time)."""
    return datetime.fromtimestamp(timestamp, timezone.utc).isoformat()


def texts_of(events: object) -> list[EventText]:
    """Return the events worth remembering (those with text): event, text, content JSON.

    Raises:
        InputValidationError: ``events`` is not a sequence of events, an event id is bad, or
            an event's text or content cannot be stored (NUL, lone surrogates).
    """
    if isinstance(events, (str, bytes)) or not isinstance(events, Sequence):
        raise InputValidationError("events must be a sequence of Event.")
    found = []
    for event in events:
        if not isinstance(event, Event):
            raise InputValidationError(
                f"events must hold Event values, not {type(event).__name__}."
            )
        text = event_text(event)
        if not text or event.content is None:
            continue
        validate_id(event.id, "event id")
        if _UNSTORABLE.search(text) or _UNSTORABLE.search(event.author):
            raise InputValidationError(
                f"event {event.id[:40]!r} has a NUL character or a lone surrogate in its text."
            )
        try:
            content = remembered_content(event).model_dump_json(by_alias=True, exclude_none=True)
        except ValueError:
            raise InputValidationError(
                f"the content of event {event.id[:40]!r} cannot be stored as JSON."
            ) from None
        found.append((event, text, content))
    return found


def encode_metadata(custom_metadata: Mapping[str, object] | None) -> str:
    """Return ``custom_metadata`` as stored JSON (SerializationError if it cannot be stored)."""
    if custom_metadata is None:
        return "{}"
    if not isinstance(custom_metadata, Mapping):
        raise InputValidationError("custom_metadata must be a mapping.")
    return codec.dumps(codec.encode_value(dict(custom_metadata), "custom_metadata"))


def decode_metadata(stored: str) -> dict[str, Any]:
    """Return the metadata stored by :func:`encode_metadata`."""
    decoded: dict[str, Any] = codec.decode_value(codec.loads(stored))
    return decoded


def remembered_content(event: Event) -> types.Content:
    """What memory keeps of ``event``'s content: all of it but credential requests and answers.

    A message may carry the user's credential (an ``adk_request_credential`` answer) beside
    its text; memory search results reach models (``load_memory``), so those parts are
    never remembered.
    """
    assert event.content is not None
    parts = event.content.parts or []
    kept = [part for part in parts if not is_credential_part(part)]
    if len(kept) == len(parts):
        return event.content
    return event.content.model_copy(update={"parts": kept})
