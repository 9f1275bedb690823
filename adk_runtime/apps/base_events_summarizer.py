"""BaseEventsSummarizer: turns a run of events into one compaction event."""

from adk_runtime.agents._events_summarizer import BaseEventsSummarizer

__all__ = ["BaseEventsSummarizer"]
