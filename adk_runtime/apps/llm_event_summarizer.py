"""LlmEventSummarizer: a model writes the summary of a run of events."""

from adk_runtime.agents._events_summarizer import LlmEventSummarizer

__all__ = ["LlmEventSummarizer"]
