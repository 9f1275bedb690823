"""BaseEventsSummarizer: turns a run of events into one compaction event."""

from __future__ import annotations

import abc

from adk_runtime.events import Event

__all__ = ["BaseEventsSummarizer"]


class BaseEventsSummarizer(abc.ABC):
    """Writes the summary that stands for a run of events (see ``EventsCompactionConfig``)."""

    @abc.abstractmethod
    async def maybe_summarize_events(self, *, events: list[Event]) -> Event | None:
        """Summarise ``events`` (in commit order) into one compaction event.

        Returns:
            An event whose ``actions.compaction`` covers the events' timestamps and holds the
            summary, or None to leave them as they are.
        """
