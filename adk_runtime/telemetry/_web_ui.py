"""google-adk's web-UI attribute names, and the call content kept for a dev UI only.

google-adk's web UI reads its own span attributes: the ids (``gcp.vertex.agent.event_id``,
``…invocation_id``, ``…session_id``) go on our spans next to ours. The content it shows
(a model call's request and response, a tool call's arguments and result) never goes on a
span, where any exporter would send it: a call hands it to the :class:`ContentStore` of
each server that records traces for its dev UI (``serve --record-traces``), keyed by the
span's id, and only when one is registered is anything serialized.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

EVENT_ID = "gcp.vertex.agent.event_id"
INVOCATION_ID = "gcp.vertex.agent.invocation_id"
SESSION_ID = "gcp.vertex.agent.session_id"
LLM_REQUEST = "gcp.vertex.agent.llm_request"
LLM_RESPONSE = "gcp.vertex.agent.llm_response"
TOOL_CALL_ARGS = "gcp.vertex.agent.tool_call_args"
TOOL_RESPONSE = "gcp.vertex.agent.tool_response"

UNSERIALIZABLE = "<not serializable>"


class ContentStore(Protocol):
    """Where a dev UI's recorder keeps call content (see :class:`.SpanRecorder`)."""

    def keep(self, span_id: int, name: str, value: str) -> None:
        """Keep ``value`` as the attribute ``name`` of the span ``span_id``."""


_stores: list[ContentStore] = []


def add_content_store(store: ContentStore) -> None:
    """Hand every later call's content to ``store`` too."""
    _stores.append(store)


def keep_content(span: Any | None, name: str, build: Callable[[], str]) -> None:
    """Give ``build()`` to every content store as the attribute ``name`` of ``span``.

    Nothing is built without a store or without a span (tracing off).
    """
    if span is None or not _stores:
        return
    try:
        value = build()
    except Exception:  # content the dev UI cannot show must never fail the call
        value = UNSERIALIZABLE
    span_id: int = span.get_span_context().span_id
    for store in _stores:
        store.keep(span_id, name, value)


# A part's bytes (inline data, thought signatures) are left out: the UI shows no bytes.
_PARTS: Mapping[str, Any] = {"__all__": {"inline_data": {"data"}, "thought_signature": True}}
# A request's HTTP options may hold credentials (headers); its schema may be a class.
_REQUEST_EXCLUDED: Mapping[str, Any] = {
    "config": {"http_options": True, "response_schema": True},
    "contents": {"__all__": {"parts": _PARTS}},
}
_RESPONSE_EXCLUDED: Mapping[str, Any] = {"content": {"parts": _PARTS}}


def request_json(request: BaseModel) -> str:
    """A model request as the UI shows it: model, config (no HTTP options) and contents."""
    dumped = request.model_dump(
        mode="json",
        exclude_none=True,
        include={"model", "config", "contents"},
        exclude=_REQUEST_EXCLUDED,
    )
    return json.dumps(dumped, ensure_ascii=False)


def response_json(response: BaseModel) -> str:
    """A complete model response, without its parts' bytes."""
    return response.model_dump_json(exclude_none=True, exclude=_RESPONSE_EXCLUDED)


def value_json(value: Any) -> str:
    """A tool's arguments or result as JSON; a result that is not a dict as ``{"result": …}``."""
    jsonable = to_jsonable_python(value, fallback=repr)
    if not isinstance(jsonable, dict):
        jsonable = {"result": jsonable}
    return json.dumps(jsonable, ensure_ascii=False)
