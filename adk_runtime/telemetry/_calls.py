"""Spans of model calls and tool calls, with the GenAI semantic-convention attributes."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

from adk_runtime.telemetry import _web_ui
from adk_runtime.telemetry._metrics import record_latency
from adk_runtime.telemetry._tracing import span


class ModelCall:
    """The span of one model call; :meth:`response` records a complete response on it."""

    def __init__(self, current: Any | None, model: str) -> None:
        self._span = current
        self._model = model
        self._started: float | None = None
        self._timed = False

    def start(self, request: Any) -> None:
        """``request`` goes to the model now (the model's latency counts from here)."""
        self._started = time.perf_counter()
        _web_ui.keep_content(self._span, _web_ui.LLM_REQUEST, lambda: _web_ui.request_json(request))

    def answered_by(self, source: str, event_id: str, response: Any) -> None:
        """Record that a callback gave ``response`` (``adk.model.response_source``)."""
        if self._span is not None:
            self._event(event_id)
            self._span.set_attribute("adk.model.response_source", source)
            self._keep_response(response)

    def response(self, response: Any, event_id: str) -> None:
        """Record the finish reason, token usage and event id of a complete ``response``.

        The first complete response also records the model's latency (request to complete
        response: the span itself lasts until the flow is done with the response).
        """
        if not self._timed and self._started is not None:
            self._timed = True
            record_latency("model", self._model, time.perf_counter() - self._started)
        if self._span is None:
            return
        self._event(event_id)
        self._keep_response(response)
        finish_reason = response.finish_reason
        if finish_reason is not None:
            reason = getattr(finish_reason, "value", finish_reason)
            self._span.set_attribute("gen_ai.response.finish_reasons", [str(reason).lower()])
        usage = response.usage_metadata
        if usage is not None:
            if usage.prompt_token_count is not None:
                self._span.set_attribute("gen_ai.usage.input_tokens", usage.prompt_token_count)
            if usage.candidates_token_count is not None:
                self._span.set_attribute("gen_ai.usage.output_tokens", usage.candidates_token_count)

    def _event(self, event_id: str) -> None:
        assert self._span is not None
        self._span.set_attribute("adk.event.id", event_id)
        self._span.set_attribute(_web_ui.EVENT_ID, event_id)

    def _keep_response(self, response: Any) -> None:
        _web_ui.keep_content(
            self._span, _web_ui.LLM_RESPONSE, lambda: _web_ui.response_json(response)
        )


@contextlib.contextmanager
def model_span(
    model: str, invocation_id: str, *, session_id: str, agent_name: str, event_id: str
) -> Iterator[ModelCall]:
    """Run one model call in a ``generate_content {model}`` span.

    As in google-adk, the span covers the model callbacks (before, after and on-error: a
    plugin sees the same current span in each) and what the flow does with the responses
    (their commits, the tool calls they ask for, which are its children). A response a
    callback gave instead of the model is marked ``adk.model.response_source``. The ids
    are also under google-adk's names, which its web UI requires.

    Args:
        model: The requested model name.
        invocation_id: The invocation making the call.
        session_id: The invocation's session.
        agent_name: The agent making the call.
        event_id: The event the call's response fills (a later complete response of the
            same call names its own event through :meth:`ModelCall.response`).
    """
    attributes = {
        "gen_ai.operation.name": "generate_content",
        "gen_ai.system": "gcp.gen_ai",
        "gen_ai.request.model": model,
        "gen_ai.agent.name": agent_name,
        "gen_ai.conversation.id": session_id,
        "adk.invocation.id": invocation_id,
        "adk.event.id": event_id,
        _web_ui.INVOCATION_ID: invocation_id,
        _web_ui.SESSION_ID: session_id,
        _web_ui.EVENT_ID: event_id,
    }
    with span(f"generate_content {model}", lambda: attributes) as current:
        yield ModelCall(current, model)


class ToolCall:
    """The span of one tool call; :meth:`answered_by` marks a response a callback gave."""

    def __init__(self, current: Any | None) -> None:
        self._span = current

    def answered_by(self, source: str) -> None:
        """Record that ``source`` (a callback) gave the response (``adk.tool.response_source``)."""
        if self._span is not None:
            self._span.set_attribute("adk.tool.response_source", source)

    def result(self, response: Any) -> None:
        """The call's result, for a dev UI's recorder only (never on the span)."""
        _web_ui.keep_content(
            self._span, _web_ui.TOOL_RESPONSE, lambda: _web_ui.value_json(response)
        )


@contextlib.contextmanager
def tool_span(
    name: str,
    description: str,
    call_id: str | None,
    *,
    args: dict[str, Any],
    event_id: str | None = None,
) -> Iterator[ToolCall]:
    """Run one tool call in an ``execute_tool`` span and time it (arguments never recorded).

    As in google-adk, the span covers the tool's callbacks (before, after and on-error) too.

    Args:
        name: The tool's name.
        description: The tool's description.
        call_id: The function call's id.
        args: The call's arguments: only a dev UI's recorder gets them, never the span.
        event_id: The function-response event the call's response goes into, if known.
    """

    def attributes() -> dict[str, str]:
        built = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.description": description,
        }
        if call_id is not None:
            built["gen_ai.tool.call.id"] = call_id
        if event_id is not None:
            built["adk.event.id"] = event_id
            built[_web_ui.EVENT_ID] = event_id
        return built

    started = time.perf_counter()
    try:
        with span(f"execute_tool {name}", attributes) as current:
            _web_ui.keep_content(current, _web_ui.TOOL_CALL_ARGS, lambda: _web_ui.value_json(args))
            yield ToolCall(current)
    finally:
        record_latency("tool", name, time.perf_counter() - started)
