"""A session store's operations as telemetry sees them (spans, append outcomes).

Only reached when telemetry is on (:func:`adk_runtime.telemetry.telemetry_enabled`): with
it off an append makes no span and no timing.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from adk_runtime.errors import EventIdConflictError, StaleSessionError
from adk_runtime.sessions._prepare import AppendResult, PreparedAppend
from adk_runtime.sessions.claims import ClaimedStart
from adk_runtime.sessions.session import Session
from adk_runtime.telemetry import record_append, store_span

__all__ = ["Commit", "Start", "read_attributes", "traced_append", "traced_start"]

Commit = Callable[[Session, PreparedAppend], Awaitable[AppendResult]]
"""The one append path of a service (``BaseSessionService._commit``)."""

Start = Callable[[], Awaitable[ClaimedStart | None]]
"""A turn's start (``BaseSessionService._claim_and_read`` with its arguments)."""


async def traced_append(
    commit: Commit,
    session: Session,
    prepared: PreparedAppend,
    backend: str,
    db_system: str | None,
) -> AppendResult:
    """``commit(session, prepared)`` in a span, counted and timed by outcome.

    Args:
        commit: The append path it wraps (the same one an untraced append runs).
        session: The session appended to.
        prepared: The append.
        backend: The service's class name.
        db_system: OpenTelemetry's ``db.system.name`` of the store (None: in-process).
    """
    with store_span(
        "append", backend, lambda: _append_attributes(session), db_system=db_system
    ) as span:
        started = time.perf_counter()
        outcome = "error"
        try:
            result = await commit(session, prepared)
            outcome = "idempotent" if result.already_stored else "committed"
        except (StaleSessionError, EventIdConflictError):
            outcome = "conflict"
            raise
        finally:
            record_append(backend, time.perf_counter() - started, outcome, db_system)
            if span is not None:
                span.set_attribute("adk.store.outcome", outcome)
        if span is not None:
            span.set_attribute("adk.store.revision", result.sequence)
        return result


def _append_attributes(session: Session) -> dict[str, str | int]:
    return {"adk.session.id": session.id, "adk.store.expected_revision": session.revision}


def read_attributes(session: Session | None) -> dict[str, int | bool]:
    if session is None:
        return {"adk.store.found": False}
    return {
        "adk.store.found": True,
        "adk.store.revision": session.revision,
        "adk.store.events_returned": len(session.events),
    }


async def traced_start(
    start: Start, backend: str, db_system: str | None, session_id: str
) -> ClaimedStart | None:
    """A turn's start (claim, read, message) in a span; its message counted as an append.

    ``adk.store.claimed`` says whether it claimed (False: the turn takes the usual steps);
    then the read's attributes, and the message's outcome when one was sent.
    """
    with store_span(
        "start", backend, lambda: {"adk.session.id": session_id}, db_system=db_system
    ) as span:
        began = time.perf_counter()
        found = await start()
        if found is None:
            if span is not None:
                span.set_attribute("adk.store.claimed", False)
            return None
        _, tail, result = found
        outcome = None
        if result is not None:
            outcome = "idempotent" if result.already_stored else "committed"
            record_append(backend, time.perf_counter() - began, outcome, db_system)
        if span is not None:
            span.set_attributes({"adk.store.claimed": True, **read_attributes(tail.session)})
            if outcome is not None:
                span.set_attribute("adk.store.outcome", outcome)
        return found
