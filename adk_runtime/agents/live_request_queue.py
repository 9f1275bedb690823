"""``google.adk.agents.live_request_queue``: the Live API's input queue, which adk_runtime refuses.

adk_runtime runs request/response and SSE turns, not google-adk's Live API (bidirectional
audio/video streaming). ``LiveRequest`` and ``LiveRequestQueue`` exist so that modules naming
them (a helper typing a ``run_live`` argument) import unchanged; creating either raises
:class:`~adk_runtime.errors.UnsupportedFeatureError`.
"""

from __future__ import annotations

from typing import Any

from adk_runtime.errors import UnsupportedFeatureError

__all__ = ["LiveRequest", "LiveRequestQueue"]

_REFUSAL = (
    "{name} belongs to google-adk's Live API (bidirectional streaming), which adk_runtime "
    "does not implement; use Runner.run_async (with RunConfig(streaming_mode=StreamingMode.SSE) "
    "for streamed text)."
)


class LiveRequest:
    """A Live API request; refused (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Refuse: the Live API is not implemented.

        Raises:
            UnsupportedFeatureError: Always.
        """
        raise UnsupportedFeatureError(_REFUSAL.format(name="LiveRequest"))


class LiveRequestQueue:
    """The Live API's input queue; refused (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Refuse: the Live API is not implemented.

        Raises:
            UnsupportedFeatureError: Always.
        """
        raise UnsupportedFeatureError(_REFUSAL.format(name="LiveRequestQueue"))
