"""EventActions: the side effects an event carries (state changes, artifacts, control flow)."""

from __future__ import annotations

from typing import Any

from google.genai import types
from pydantic import BaseModel, Field

from adk_runtime.events._json_fields import STORED_FORM, JsonDict
from adk_runtime.events.tool_confirmation import ToolConfirmation
from adk_runtime.events.ui_widget import UiWidget

__all__ = ["EventActions", "EventCompaction"]

Route = bool | int | str
"""One route value: what a workflow graph's edge matches on (google-adk 2)."""


class EventCompaction(BaseModel):
    """A summary that stands for a run of earlier events (google-adk's event compaction).

    The model is shown ``compacted_content`` in place of the events committed before the
    compaction event whose timestamps fall in ``[start_timestamp, end_timestamp]``; the
    events themselves stay stored (see :mod:`adk_runtime.apps.compaction`). A range whose
    start is after its end stands for nothing and is ignored.

    Attributes:
        start_timestamp: The timestamp of the first event summarised, in seconds.
        end_timestamp: The timestamp of the last event summarised, in seconds.
        compacted_content: The summary, as the model's own words (role ``model``).
    """

    model_config = STORED_FORM.copy()

    # Finite only: JSON has no NaN or infinity, so such a bound could not be read back.
    start_timestamp: float = Field(allow_inf_nan=False)
    end_timestamp: float = Field(allow_inf_nan=False)
    compacted_content: types.Content


class EventActions(BaseModel):
    """The actions attached to an event, with google-adk's field names and meaning.

    Attributes:
        state_delta: State changes committed together with the event. Keys may carry the
            ``app:``, ``user:`` or ``temp:`` prefix; ``temp:`` keys are never stored.
        artifact_delta: Artifact filename to the version saved by this step.
        transfer_to_agent: Name of the agent to hand the conversation to.
        transfer_reason: Why, when the model gave a reason (``TransferToAgentTool`` with
            ``include_transfer_reason``).
        escalate: Ask the enclosing workflow (e.g. a ``LoopAgent``) to stop.
        skip_summarization: Do not ask the model to summarize a function response.
        requested_auth_configs: Function-call id to the auth configuration it needs.
        requested_tool_confirmations: Function-call id to the confirmation its tool asks
            the user for (``tool_context.request_confirmation``).
        end_of_agent: The authoring agent finished its run.
        agent_state: Resumable state of the authoring agent.
        rewind_before_invocation_id: Set only on a rewind event: the invocation the session
            was rewound to before (it and everything after it no longer count).
        compaction: Set only on a compaction event: the summary standing for a run of
            earlier events in what the model sees.
        render_ui_widgets: Widgets the client renders with this event
            (``tool_context.render_ui_widget``).
        route: google-adk 2's route (or routes) for a workflow graph's edges to match.
            adk_runtime runs no workflow graphs and never reads it; it is stored when given.
    """

    model_config = STORED_FORM.copy()

    skip_summarization: bool | None = None
    state_delta: JsonDict = Field(default_factory=dict)
    artifact_delta: dict[str, int] = Field(default_factory=dict)
    transfer_to_agent: str | None = None
    transfer_reason: str | None = None
    escalate: bool | None = None
    requested_auth_configs: JsonDict = Field(default_factory=dict)
    requested_tool_confirmations: dict[str, ToolConfirmation] = Field(default_factory=dict)
    end_of_agent: bool | None = None
    agent_state: JsonDict | None = None
    rewind_before_invocation_id: str | None = None
    compaction: EventCompaction | None = None
    render_ui_widgets: list[UiWidget] | None = None
    route: Route | list[Route] | None = None

    def is_empty(self) -> bool:
        """Return True when the actions carry nothing (no delta, no control flow)."""
        return not (
            self.state_delta
            or self.artifact_delta
            or self.transfer_to_agent
            or self.escalate
            or self.skip_summarization
            or self.requested_auth_configs
            or self.requested_tool_confirmations
            or self.end_of_agent
            or self.agent_state
            or self.rewind_before_invocation_id
            or self.compaction
            or self.render_ui_widgets
            or self.route is not None
        )

    def merge(self, other: EventActions) -> None:
        """Fold ``other`` into these actions (later values win), in place."""
        self.state_delta.update(other.state_delta)
        self.artifact_delta.update(other.artifact_delta)
        self.requested_auth_configs.update(other.requested_auth_configs)
        self.requested_tool_confirmations.update(other.requested_tool_confirmations)
        for name in (
            "skip_summarization",
            "transfer_to_agent",
            "transfer_reason",
            "escalate",
            "end_of_agent",
            "rewind_before_invocation_id",
            "route",
        ):
            value: Any = getattr(other, name)
            if value is not None:
                setattr(self, name, value)
        if other.agent_state is not None:
            self.agent_state = other.agent_state
        if other.compaction is not None:
            self.compaction = other.compaction
        if other.render_ui_widgets:  # parallel calls' widgets are all shown
            self.render_ui_widgets = [*(self.render_ui_widgets or []), *other.render_ui_widgets]
