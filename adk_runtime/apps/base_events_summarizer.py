"""BaseEventsSummarizer: turns a run of events into one compaction event."""

from adk_runtime.core._compaction_config import BaseEventsSummarizer

__all__ = ["BaseEventsSummarizer"]
