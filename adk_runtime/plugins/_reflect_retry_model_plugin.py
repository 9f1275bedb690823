"""ReflectAndRetryModelPlugin: a failed model reply becomes a reflection step, then a retry.

When a reply ends with one of the finish reasons named in ``on_model_errors`` and an error
code (by default ``MALFORMED_FUNCTION_CALL``: the model wrote a tool call that does not
parse), the plugin replaces it with a call of its own reserved tool, ``adk_handle_model_error``,
whose arguments carry the error. The flow commits that call, runs the tool (offered through
the request's tools, never declared to the model), and the model's next request holds the
call and an answer asking it to reconsider: the model tries again within the same
invocation. A model that calls the reserved tool itself is treated as failing the same way.

Failures are counted per model name within a scope (the invocation, or every invocation with
``TrackingScope.GLOBAL``); a good reply resets the count. Past ``max_retries`` the plugin
raises (the invocation ends with ``PluginError``) or, with
``throw_exception_if_retry_exceeded=False``, lets the failed reply through.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from google.genai import types

from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.models.llm_response import LlmResponse
from adk_runtime.plugins.reflect_retry_tool_plugin import (
    GLOBAL_SCOPE_KEY,
    REFLECT_AND_RETRY_RESPONSE_TYPE,
    ForgetsInvocationCounts,
    TrackingScope,
)
from adk_runtime.tools.function_tool import FunctionTool
from adk_runtime.utils.content_utils import SKIP_THOUGHT_SIGNATURE_VALIDATOR

if TYPE_CHECKING:
    from adk_runtime.core.callback_context import CallbackContext

__all__ = ["RESERVED_TOOL_CALL_ERROR_TYPE", "ReflectAndRetryModelPlugin"]

RESERVED_TOOL_CALL_ERROR_TYPE = "RESERVED_TOOL_CALL"
"""The error type of a reply that called the reserved tool itself."""

_TOOL = "adk_handle_model_error"


class ReflectAndRetryModelPlugin(ForgetsInvocationCounts):
    """Turns failed model replies into a reflection step and a retry (see the module docstring)."""

    def __init__(
        self,
        name: str = "reflect_retry_model_plugin",
        max_retries: int = 3,
        throw_exception_if_retry_exceeded: bool = True,
        tracking_scope: TrackingScope = TrackingScope.INVOCATION,
        on_model_errors: list[types.FinishReason] | None = None,
    ) -> None:
        """Create the plugin.

        Args:
            name: The plugin's name.
            max_retries: Consecutive failed replies of one model retried before giving up
                (0: none).
            throw_exception_if_retry_exceeded: Raise when giving up (else the failed reply
                goes through).
            tracking_scope: Count failures per invocation or across them.
            on_model_errors: The finish reasons that make a reply with an error code a
                failure (default: ``[FinishReason.MALFORMED_FUNCTION_CALL]``).

        Raises:
            ValueError: ``max_retries`` is negative, or an entry of ``on_model_errors`` is
                not a ``types.FinishReason``.
        """
        super().__init__(name)
        if max_retries < 0:
            raise ValueError(f"max_retries must be 0 or more, not {max_retries}.")
        reasons = (
            [types.FinishReason.MALFORMED_FUNCTION_CALL]
            if on_model_errors is None
            else list(on_model_errors)
        )
        for reason in reasons:
            if not isinstance(reason, types.FinishReason):
                raise ValueError(
                    f"on_model_errors takes google.genai.types.FinishReason values, not {reason!r}."
                )
        self.max_retries = max_retries
        self.throw_exception_if_retry_exceeded = throw_exception_if_retry_exceeded
        self.scope = tracking_scope
        self.on_model_errors = reasons
        # scope key -> model name -> consecutive failures. Each update runs without an await
        # between its read and its write, so concurrent turns on one loop cannot lose one.
        self._failures: dict[str, dict[str, int]] = {}

    def adk_handle_model_error(
        self,
        *,
        response_type: str,
        error_type: str | None,
        error_details: str | None,
        finish_reason: str | None,
        retry_count: int,
    ) -> dict[str, str]:
        """Reserved for the runtime: the model must never call it (answers a failed reply)."""
        return {
            "reflection_guidance": (
                f"Your previous reply could not be used ({error_type or 'error'}: "
                f"{error_details or 'no details'}). This is retry {retry_count} of "
                f"{self.max_retries}. Look at what went wrong, do not send the same reply "
                "again, and answer again with a corrected or different approach."
            )
        }

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        """Offer the reserved tool to the flow (not declared to the model)."""
        llm_request.tools_dict[_TOOL] = FunctionTool(func=self.adk_handle_model_error)
        return None

    async def after_model_callback(
        self, *, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> LlmResponse | None:
        """Retry a failed reply (a reflection call instead of it); reset the count on success."""
        key = self._scope_key(callback_context)
        model = _model_name(callback_context)
        if any(call.name == _TOOL for call in llm_response.get_function_calls()):
            retry = self._retry(
                key,
                model,
                RESERVED_TOOL_CALL_ERROR_TYPE,
                f"The model called the reserved tool {_TOOL} itself; only the runtime may.",
                types.FinishReason.OTHER,
            )
            return retry or LlmResponse(
                error_code=RESERVED_TOOL_CALL_ERROR_TYPE,
                error_message=f"The model called the reserved tool {_TOOL}; retries exhausted.",
            )
        if llm_response.error_code and llm_response.finish_reason in self.on_model_errors:
            return self._retry(
                key,
                model,
                str(llm_response.error_code),
                llm_response.error_message,
                llm_response.finish_reason,
            )
        self._failures.get(key, {}).pop(model, None)
        return None

    def _scope_key(self, callback_context: CallbackContext) -> str:
        if self.scope is TrackingScope.GLOBAL:
            return GLOBAL_SCOPE_KEY
        return callback_context.invocation_id

    def _retry(
        self,
        key: str,
        model: str,
        error_type: str,
        error_details: str | None,
        finish_reason: types.FinishReason | None,
    ) -> LlmResponse | None:
        """The reflection call replacing a failed reply; None (or raise) past the limit."""
        counts = self._failures.setdefault(key, {})
        counts[model] = attempt = counts.get(model, 0) + 1
        if attempt <= self.max_retries:
            call = types.FunctionCall(
                id=f"{_TOOL}_{uuid.uuid4()}",
                name=_TOOL,
                args={
                    "response_type": REFLECT_AND_RETRY_RESPONSE_TYPE,
                    "error_type": error_type,
                    "error_details": error_details,
                    "finish_reason": finish_reason.value if finish_reason else None,
                    "retry_count": attempt,
                },
            )
            part = types.Part(
                function_call=call, thought_signature=SKIP_THOUGHT_SIGNATURE_VALIDATOR
            )
            return LlmResponse(content=types.Content(role="model", parts=[part]))
        if self.throw_exception_if_retry_exceeded:
            raise RuntimeError(
                f"The model failed {self.max_retries + 1} times in a row ({error_type}); "
                "the retry limit is exceeded."
            )
        return None


def _model_name(callback_context: CallbackContext) -> str:
    agent = callback_context.get_invocation_context().agent
    canonical = getattr(agent, "canonical_model", None)
    return str(getattr(canonical, "model", "") or agent.name)
