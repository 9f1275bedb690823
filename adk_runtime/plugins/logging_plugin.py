"""LoggingPlugin: one log line per hook of every invocation, for development and debugging."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from google.genai import types

from adk_runtime.core.base_plugin import BasePlugin
from adk_runtime.plugins._tool_results import ToolResultClassifier, check_classifier, failure_of

if TYPE_CHECKING:
    from adk_runtime.core.base_agent import BaseAgent
    from adk_runtime.core.base_tool import BaseTool
    from adk_runtime.core.callback_context import CallbackContext
    from adk_runtime.core.invocation_context import InvocationContext
    from adk_runtime.core.tool_context import ToolContext
    from adk_runtime.events import Event
    from adk_runtime.models.llm_request import LlmRequest
    from adk_runtime.models.llm_response import LlmResponse

__all__ = ["LoggingPlugin"]

logger = logging.getLogger(__name__)

_MAX_CHARS = 200


class LoggingPlugin(BasePlugin):
    """Logs each step of every invocation at INFO on ``adk_runtime.plugins.logging_plugin``.

    User messages, invocation start and end, agent runs, model requests and responses, tool
    calls and results, and errors: one line each, values cut to 200 characters. It observes
    only (every hook returns None), so it changes nothing of the run. State values and tool
    arguments appear in the log: do not enable it where those are secret.

    A tool call is logged as failed (at WARNING) when the tool raises, and also when its
    result reports a failure without raising: an answer of ``ReflectAndRetryToolPlugin``, a
    result with an MCP ``isError`` (or ``is_error``) flag set to True, or a result
    ``tool_result_classifier`` says is an error. An error logged when the tool raised is not
    logged again when a later plugin's answer to it arrives as the call's result.
    """

    def __init__(
        self,
        name: str = "logging_plugin",
        *,
        tool_result_classifier: ToolResultClassifier | None = None,
    ) -> None:
        """Create the plugin.

        Args:
            name: Unique among the Runner's plugins.
            tool_result_classifier: Says which results of the application's tools report a
                failure (see :class:`~adk_runtime.plugins.ToolResultClassifier`). One that
                raises or answers anything but a ``ToolResultClassification`` or None is
                skipped with a warning naming only the tool, and the built-in rules apply.

        Raises:
            ValueError: ``tool_result_classifier`` is not callable, is asynchronous, or cannot
                take the keyword arguments ``tool``, ``tool_args``, ``tool_context`` and
                ``result``.
        """
        check_classifier(tool_result_classifier)
        super().__init__(name)
        self._tool_result_classifier = tool_result_classifier
        # (invocation id, function call id) of the calls whose raised error was logged
        self._errored_calls: set[tuple[str, str | None]] = set()

    def _log(self, text: str, *args: Any) -> None:
        logger.info("[%s] " + text, self.name, *args)

    async def on_user_message_callback(
        self, *, invocation_context: InvocationContext, user_message: types.Content
    ) -> types.Content | None:
        """Log the user's message."""
        self._log(
            "user message in session %s (invocation %s): %s",
            invocation_context.session.id,
            invocation_context.invocation_id,
            _content(user_message),
        )
        return None

    async def before_run_callback(
        self, *, invocation_context: InvocationContext
    ) -> types.Content | None:
        """Log the start of the invocation."""
        self._log(
            "invocation %s starts with agent %s",
            invocation_context.invocation_id,
            invocation_context.agent.name,
        )
        return None

    async def on_event_callback(
        self, *, invocation_context: InvocationContext, event: Event
    ) -> Event | None:
        """Log an event the agents yielded."""
        self._log(
            "event %s by %s%s: %s",
            event.id,
            event.author,
            " (partial)" if event.partial else "",
            _content(event.content),
        )
        return None

    async def after_run_callback(self, *, invocation_context: InvocationContext) -> None:
        """Log the end of the invocation."""
        self._forget(invocation_context.invocation_id)
        self._log("invocation %s ended", invocation_context.invocation_id)

    def _forget(self, invocation_id: str) -> None:
        if self._errored_calls:
            self._errored_calls = {c for c in self._errored_calls if c[0] != invocation_id}

    async def on_run_error_callback(
        self, *, invocation_context: InvocationContext, error: Exception
    ) -> None:
        """Log the invocation's failure (its type; the message may hold user data)."""
        self._forget(invocation_context.invocation_id)
        self._log(
            "invocation %s failed: %s", invocation_context.invocation_id, type(error).__name__
        )

    async def before_agent_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext
    ) -> types.Content | None:
        """Log an agent starting."""
        self._log("agent %s starts", agent.name)
        return None

    async def after_agent_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext
    ) -> types.Content | None:
        """Log an agent finishing."""
        self._log("agent %s finished", agent.name)
        return None

    async def on_agent_error_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext, error: Exception
    ) -> None:
        """Log an agent's failure."""
        self._log("agent %s failed: %s", agent.name, type(error).__name__)

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        """Log a model request (model, number of contents, tools)."""
        self._log(
            "agent %s calls model %s with %d contents and tools %s",
            callback_context.agent_name,
            llm_request.model,
            len(llm_request.contents),
            sorted(llm_request.tools_dict),
        )
        return None

    async def after_model_callback(
        self, *, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> LlmResponse | None:
        """Log a model response."""
        if llm_response.error_code:
            self._log("model error %s", llm_response.error_code)
        else:
            self._log("model answered: %s", _content(llm_response.content))
        return None

    async def on_model_error_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest, error: Exception
    ) -> LlmResponse | None:
        """Log a failed model call."""
        self._log("model call failed: %s", type(error).__name__)
        return None

    async def before_tool_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        """Log a tool call and its arguments."""
        self._log(
            "tool %s called (%s) with %s",
            tool.name,
            tool_context.function_call_id,
            _short(tool_args),
        )
        return None

    async def after_tool_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        result: dict[str, Any],
    ) -> dict[str, Any] | None:
        """Log a tool's result, or the failure it reports (see the class docstring)."""
        call = (tool_context.invocation_id, tool_context.function_call_id)
        if call in self._errored_calls:
            self._errored_calls.discard(call)  # the answer to an error logged already
            return None
        failure = failure_of(self._tool_result_classifier, tool, tool_args, tool_context, result)
        if failure is None:
            self._log("tool %s returned %s", tool.name, _short(result))
        else:
            logger.warning(
                "[%s] tool %s failed: %s (result %s)",
                self.name,
                tool.name,
                _short(failure),
                _short(result),
            )
        return None

    async def on_tool_error_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        error: Exception,
    ) -> dict[str, Any] | None:
        """Log a failed tool call."""
        logger.warning("[%s] tool %s failed: %s", self.name, tool.name, type(error).__name__)
        self._errored_calls.add((tool_context.invocation_id, tool_context.function_call_id))
        return None


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= _MAX_CHARS else text[:_MAX_CHARS] + "..."


def _content(content: types.Content | None) -> str:
    if content is None or not content.parts:
        return "(no content)"
    shown: list[str] = []
    for part in content.parts:
        if part.text:
            shown.append(_short(part.text))
        elif part.function_call:
            shown.append(f"call {part.function_call.name}({_short(part.function_call.args)})")
        elif part.function_response:
            shown.append(f"response of {part.function_response.name}")
        else:
            shown.append("(other part)")
    return " | ".join(shown)
