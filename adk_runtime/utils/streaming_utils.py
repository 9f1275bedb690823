"""Streaming helpers at google-adk's path (``google.adk.utils.streaming_utils`` → here).

:class:`StreamingResponseAggregator` is the runtime's one aggregator of streamed model
replies (:class:`adk_runtime.models.Gemini` streams through it): a model of one's own that
streams google-genai chunks can use it to yield partial responses and then the complete
reply, as ``StreamingMode.SSE`` expects. The ``PROGRESSIVE_SSE_STREAMING`` feature switch
(:mod:`adk_runtime.features`) chooses how it aggregates; see
:mod:`adk_runtime.models._stream_aggregator`.
"""

from __future__ import annotations

from adk_runtime.models._stream_aggregator import StreamingResponseAggregator

__all__ = ["StreamingResponseAggregator"]
