"""``Event.custom_metadata`` keys that only the runtime writes (google-adk's prefix).

A key starting with :data:`INTERNAL_METADATA_PREFIX` is the runtime's own: a caller cannot
set one through ``RunConfig.custom_metadata`` (dropped where that is merged into events and
into the invocation's metadata), events a client hands in (a new session's events over the
HTTP API) lose theirs and are marked restored instead, and what leaves the runtime through
the HTTP API carries none. Stored events keep them, and so do a store's export and import
(``adk-runtime sessions export`` / ``import``), which copy a store, not a conversation.

The prefix is google-adk's, so sessions moved between the two keep their meaning.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from adk_runtime.events.event import Event

__all__ = [
    "INTERNAL_METADATA_PREFIX",
    "RESTORED_EVENT_KEY",
    "is_restored",
    "mark_restored",
    "public_event",
    "public_metadata",
    "without_internal_metadata",
]

logger = logging.getLogger(__name__)

INTERNAL_METADATA_PREFIX = "__adk_internal_"
"""Prefix of the ``custom_metadata`` keys a caller cannot set."""

RESTORED_EVENT_KEY = INTERNAL_METADATA_PREFIX + "restored_event"
"""Set on an event that came into a session from outside the runtime (see :func:`mark_restored`)."""


def _is_internal(key: object) -> bool:
    return isinstance(key, str) and key.startswith(INTERNAL_METADATA_PREFIX)


def without_internal_metadata(metadata: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """``metadata`` without its internal keys (a new dict); None stays None.

    For metadata a caller supplies: the dropped keys' names are logged at debug level.
    """
    if metadata is None:
        return None
    kept = {key: value for key, value in metadata.items() if not _is_internal(key)}
    if len(kept) != len(metadata):
        dropped = sorted(str(key) for key in metadata if _is_internal(key))
        logger.debug("dropping runtime-internal custom_metadata keys %s", dropped)
    return kept


def public_metadata(metadata: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """``metadata`` as callers see it: without internal keys, None when nothing is left."""
    if metadata is None:
        return None
    return {key: value for key, value in metadata.items() if not _is_internal(key)} or None


def mark_restored(event: Event) -> Event:
    """Mark ``event`` (in place) as restored from outside the session; returns it.

    Its own internal keys are dropped first, so a caller cannot hand in any. A restored
    event is history only: ``ToolCallIntegrityPlugin`` never runs its function calls.
    """
    event.custom_metadata = {
        **(without_internal_metadata(event.custom_metadata) or {}),
        RESTORED_EVENT_KEY: True,
    }
    return event


def is_restored(event: Event) -> bool:
    """Whether ``event`` carries the restored mark."""
    return bool((event.custom_metadata or {}).get(RESTORED_EVENT_KEY))


def public_event(event: Event) -> Event:
    """``event`` as callers see it: itself, or a copy without internal metadata."""
    metadata = event.custom_metadata
    if not metadata or not any(_is_internal(key) for key in metadata):
        return event
    return event.model_copy(update={"custom_metadata": public_metadata(metadata)})
