"""When to compact a session's events, and the contract of what writes the summary.

``EventsCompactionConfig`` is public as ``adk_runtime.apps.app.EventsCompactionConfig``,
``BaseEventsSummarizer`` as ``adk_runtime.apps.base_events_summarizer``.
"""

from __future__ import annotations

import abc

from pydantic import BaseModel, ConfigDict, Field, InstanceOf, model_validator

from adk_runtime.events import Event

__all__ = ["BaseEventsSummarizer", "EventsCompactionConfig"]


class BaseEventsSummarizer(abc.ABC):
    """Writes the summary that stands for a run of events (see ``EventsCompactionConfig``)."""

    @abc.abstractmethod
    async def maybe_summarize_events(self, *, events: list[Event]) -> Event | None:
        """Summarise ``events`` (in commit order) into one compaction event.

        Returns:
            An event whose ``actions.compaction`` covers the events' timestamps and holds the
            summary, or None to leave them as they are.
        """


class EventsCompactionConfig(BaseModel):
    """When to replace older events of a session by a summary in what the model sees.

    Two triggers, each a pair of settings (set both or neither; at least one pair):

    - **Sliding window** (``compaction_interval``, ``overlap_size``): once
      ``compaction_interval`` invocations have finished since the last summary, their events,
      with those of the ``overlap_size`` invocations before them, are summarised into one.
    - **Token threshold** (``token_threshold``, ``event_retention_size``): once the last model
      request of the session reached ``token_threshold`` prompt tokens (or, with no count
      reported, about that many by a four-characters-a-token estimate), everything but the
      last ``event_retention_size`` events is summarised, the previous summary included, so
      one rolling summary replaces the others. Tried first when both are set.

    Compaction runs after an invocation has yielded its last event, inside the same turn
    (the caller's iteration ends after it), and commits one compaction event (see
    :class:`~adk_runtime.events.event_actions.EventCompaction`); the summarised events stay
    stored, and every backend reads them back as before. A range is never cut between a
    function call and its response, nor through a pending confirmation; a failed summary is
    logged and the turn still succeeds.

    Attributes:
        summarizer: Writes the summaries; by default an ``LlmEventSummarizer`` on the root
            agent's model (the root agent must then be an ``LlmAgent``).
        compaction_interval: Invocations, since the last summary, that trigger a new one.
        overlap_size: Earlier invocations summarised again with them, for continuity.
        token_threshold: Prompt tokens of the last model request that trigger a summary.
        event_retention_size: Events left as they are at the end when that trigger fires.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    summarizer: InstanceOf[BaseEventsSummarizer] | None = None
    compaction_interval: int | None = Field(default=None, gt=0)
    overlap_size: int | None = Field(default=None, ge=0)
    token_threshold: int | None = Field(default=None, gt=0)
    event_retention_size: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _check_triggers(self) -> EventsCompactionConfig:
        window = (self.compaction_interval is not None, self.overlap_size is not None)
        tokens = (self.token_threshold is not None, self.event_retention_size is not None)
        if window[0] != window[1]:
            raise ValueError("Set compaction_interval and overlap_size together, or neither.")
        if tokens[0] != tokens[1]:
            raise ValueError("Set token_threshold and event_retention_size together, or neither.")
        if not (window[0] or tokens[0]):
            raise ValueError(
                "EventsCompactionConfig needs a trigger: compaction_interval with overlap_size, "
                "or token_threshold with event_retention_size."
            )
        return self
