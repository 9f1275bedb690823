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
    return _for_web_ui(spans)


_RUNTIME_PREFIXES = ("adk.", "gen_ai.", "db.")
_UI_INVOCATION = "gcp.vertex.agent.invocation_id"


def _for_web_ui(spans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The runtime's spans as google-adk's web UI groups them.

    The HTTP framework's spans around a turn (``POST /run``, ``fastapi.*``) are left out, so
    the turn's ``invocation`` span is the root of its tree; every span carries its
    invocation's id under the attribute name the UI groups by.
    """
    kept = [
        span
        for span in spans
        if any(key.startswith(_RUNTIME_PREFIXES) for key in span.get("attributes", {}))
    ]
    by_id = {span["span_id"]: span for span in kept}
    for span in kept:
        invocation = _invocation_of(span, by_id)
        if invocation is not None:
            span["attributes"] = {**span["attributes"], _UI_INVOCATION: invocation}
    return kept


def _invocation_of(span: dict[str, Any], by_id: dict[Any, dict[str, Any]]) -> Any:
    seen = 0
    current: dict[str, Any] | None = span
    while current is not None and seen < len(by_id) + 1:
        found = current["attributes"].get("adk.invocation.id")
        if found is not None:
            return found
        current = by_id.get(current.get("parent_span_id"))
        seen += 1
    return None


@metrics_router.get("/metrics", include_in_schema=False)
async def prometheus_metrics(request: Request) -> Response:
    """The process's metrics in the Prometheus text format."""
    from adk_runtime.telemetry._prometheus import CONTENT_TYPE

    text: bytes = request.app.state.adk_metrics.render()
    return Response(content=text, media_type=CONTENT_TYPE)
