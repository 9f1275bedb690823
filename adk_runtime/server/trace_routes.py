"""The dev UI's trace views and ``/metrics``, answered from what this server recorded.

``GET /dev/apps/{app}/debug/trace/{event_id}``: the attributes of the model call that
produced an event (plus ``trace_id`` and ``span_id``), the shape google-adk's web UI shows
in its event view. ``GET /dev/apps/{app}/debug/trace/session/{session_id}``: every span of
the traces of that session (name, start/end in ns, ids, parent, attributes, logs), the
Traces tab's list. Nothing recorded (an unknown event, or a server without
``--record-traces``) is an empty answer (``{}`` / ``[]``), never a 404: the UI asks after
every message. ``GET /metrics``: Prometheus text.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

router = APIRouter()
metrics_router = APIRouter()


def _recorder(request: Request) -> Any:
    return getattr(request.app.state, "adk_span_recorder", None)


@router.get("/dev/apps/{app_name}/debug/trace/{event_id}")
async def event_trace(app_name: str, event_id: str, request: Request) -> dict[str, Any]:
    """The span attributes of the model call that produced ``event_id`` ({} if none)."""
    recorder = _recorder(request)
    found: dict[str, Any] | None = None if recorder is None else recorder.event_span(event_id)
    return found or {}


@router.get("/dev/apps/{app_name}/debug/trace/session/{session_id}")
async def session_trace(app_name: str, session_id: str, request: Request) -> list[dict[str, Any]]:
    """Every recorded span of the turns of ``session_id``, oldest first ([] if none)."""
    recorder = _recorder(request)
    spans: list[dict[str, Any]] = [] if recorder is None else recorder.session_spans(session_id)
    return spans


@metrics_router.get("/metrics", include_in_schema=False)
async def prometheus_metrics(request: Request) -> Response:
    """The process's metrics in the Prometheus text format."""
    from adk_runtime.telemetry._prometheus import CONTENT_TYPE

    text: bytes = request.app.state.adk_metrics.render()
    return Response(content=text, media_type=CONTENT_TYPE)
