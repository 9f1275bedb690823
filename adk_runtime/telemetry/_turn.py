"""The invocation span of one turn, its metrics and its failure log line."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from adk_runtime.telemetry._logs import log_failed_turn
from adk_runtime.telemetry._metrics import record_turn
from adk_runtime.telemetry._tracing import span


class Turn:
    """What the Runner tells telemetry about a running turn.

    Attributes:
        span: The invocation span, or None when tracing is off.
        events: The events committed so far.
    """

    def __init__(self, current: Any | None) -> None:
        self.span = current
        self.events = 0

    def started(self, invocation_id: str, agent_name: str) -> None:
        """Name the invocation and its first agent on the span."""
        if self.span is not None:
            self.span.set_attribute("adk.invocation.id", invocation_id)
            self.span.set_attribute("gen_ai.agent.name", agent_name)


@contextlib.contextmanager
def turn(app_name: str, user_id: str, session_id: str) -> Iterator[Turn]:
    """Run one turn in an ``invocation`` span; count it and log it if it fails.

    Args:
        app_name: The app.
        user_id: The user.
        session_id: The session (ids only: never state or message content).
    """
    attributes = {"adk.app.name": app_name, "adk.user.id": user_id, "adk.session.id": session_id}
    with span("invocation", lambda: attributes) as current:
        state = Turn(current)
        if current is not None:
            current.set_attribute("gen_ai.conversation.id", session_id)
        record_turn(active=1)
        try:
            yield state
        except Exception as exc:
            log_failed_turn(app_name, user_id, session_id, exc)
            raise
        finally:
            record_turn(events=state.events, active=-1)
