"""CallbackContext: what agent and model callbacks may read and write."""

from __future__ import annotations

from typing import TYPE_CHECKING

from adk_runtime.agents.readonly_context import ReadonlyContext
from adk_runtime.events import EventActions
from adk_runtime.sessions.state import State

if TYPE_CHECKING:
    from adk_runtime.agents.invocation_context import InvocationContext

__all__ = ["CallbackContext"]


class CallbackContext(ReadonlyContext):
    """A context whose state writes land in the ``actions`` of the event that carries the step.

    A write is visible at once to the rest of the invocation and becomes durable when that
    event is committed.
    """

    def __init__(
        self,
        invocation_context: InvocationContext,
        *,
        event_actions: EventActions | None = None,
    ) -> None:
        """Wrap ``invocation_context``; writes are recorded in ``event_actions``."""
        super().__init__(invocation_context)
        self._event_actions = event_actions if event_actions is not None else EventActions()
        self._state = State(
            value=invocation_context.session.state, delta=self._event_actions.state_delta
        )

    @property
    def state(self) -> State:  # type: ignore[override]
        """The session state; writes are recorded in this step's ``state_delta``."""
        return self._state

    @property
    def actions(self) -> EventActions:
        """The actions of the event that will carry this step."""
        return self._event_actions
