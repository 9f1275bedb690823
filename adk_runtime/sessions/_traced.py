"""A session store's operations as telemetry sees them (spans, append outcomes).

Only reached when telemetry is on (:func:`adk_runtime.telemetry.telemetry_enabled`): with
it off an append makes no span and no timing.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from adk_runtime.errors import EventIdConflictError, StaleSessionError
from adk_runtime.sessions._prepare import AppendResult, PreparedAppend, check_retry
from adk_runtime.sessions.session import Session
from adk_runtime.telemetry import record_append, store_span

if TYPE_CHECKING:
    from adk_runtime.sessions.base import BaseSessionService

__all__ = ["read_attributes", "traced_append"]


async def traced_append(
    service: BaseSessionService, session: Session, prepared: PreparedAppend
) -> AppendResult:
    """The backend's append in a span, counted and timed by outcome."""
    backend = type(service).__name__
    system = service.db_system_name
    with store_span(
        "append", backend, lambda: _append_attributes(session), db_system=system
    ) as span:
        started = time.perf_counter()
        outcome = "error"
        try:
            result = await service._append_event(session, prepared)
            if result.already_stored:
                check_retry(session.id, prepared, result.event)
            outcome = "idempotent" if result.already_stored else "committed"
        except (StaleSessionError, EventIdConflictError):
            outcome = "conflict"
            raise
        finally:
            record_append(backend, time.perf_counter() - started, outcome, system)
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
