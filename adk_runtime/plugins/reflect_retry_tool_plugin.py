"""ReflectAndRetryToolPlugin: answer a failed tool call with advice, so the model tries again.

A tool that raises (or whose result the plugin recognises as an error) is not answered with
the bare error: the model gets a structured response naming the tool, the error, the
arguments it used and which attempt this was, and is asked to reconsider before calling again.
After ``max_retries`` consecutive failures of one tool the plugin gives up: it raises the
error (which ends the invocation) or, with ``throw_exception_if_retry_exceeded=False``, tells
the model to stop using that tool.
"""

from __future__ import annotations

import asyncio
import json
from enum import Enum
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from adk_runtime.core.base_plugin import BasePlugin

if TYPE_CHECKING:
    from adk_runtime.core.base_tool import BaseTool
    from adk_runtime.core.invocation_context import InvocationContext
    from adk_runtime.core.tool_context import ToolContext

__all__ = [
    "GLOBAL_SCOPE_KEY",
    "REFLECT_AND_RETRY_RESPONSE_TYPE",
    "PerToolFailuresCounter",
    "ReflectAndRetryToolPlugin",
    "ToolFailureResponse",
    "TrackingScope",
]

REFLECT_AND_RETRY_RESPONSE_TYPE = "ERROR_HANDLED_BY_REFLECT_AND_RETRY_PLUGIN"
"""The ``response_type`` of every answer the plugin gives (google-adk's value, so that other
plugins recognise these answers as tool errors)."""

GLOBAL_SCOPE_KEY = "__global_reflect_and_retry_scope__"
"""The scope key every failure is counted under with ``TrackingScope.GLOBAL``."""

PerToolFailuresCounter = dict[str, int]
"""Consecutive failures by tool name, within one scope."""


class TrackingScope(Enum):
    """Which failures count together towards ``max_retries``."""

    INVOCATION = "invocation"
    """Each invocation counts its own failures (the default)."""
    GLOBAL = "global"
    """Failures count across every invocation, session and user the plugin sees."""


class ToolFailureResponse(BaseModel):
    """The response the model gets instead of a failed tool's result.

    Attributes:
        response_type: Always :data:`REFLECT_AND_RETRY_RESPONSE_TYPE`.
        error_type: The exception's class name (``ToolError`` for an error found in a result).
        error_details: The error's text.
        retry_count: Which consecutive failure of the tool this is (``max_retries`` once the
            plugin gave up).
        reflection_guidance: What the model is asked to do next, in words.
    """

    response_type: str = REFLECT_AND_RETRY_RESPONSE_TYPE
    error_type: str = ""
    error_details: str = ""
    retry_count: int = 0
    reflection_guidance: str = ""


class ForgetsInvocationCounts(BasePlugin):
    """A plugin counting failures per scope key that forgets an invocation's when it ends."""

    _failures: dict[str, dict[str, int]]

    async def after_run_callback(self, *, invocation_context: InvocationContext) -> None:
        """Forget the invocation's counts (with ``TrackingScope.INVOCATION``)."""
        self._failures.pop(invocation_context.invocation_id, None)

    async def on_run_error_callback(
        self, *, invocation_context: InvocationContext, error: Exception
    ) -> None:
        """Forget the failed invocation's counts (with ``TrackingScope.INVOCATION``)."""
        self._failures.pop(invocation_context.invocation_id, None)


class ReflectAndRetryToolPlugin(ForgetsInvocationCounts):
    """Answers tool failures with guidance for the model, up to a number of retries per tool.

    Failures are counted per tool name within a scope (by default the invocation, see
    :class:`TrackingScope`); a successful call of a tool resets its count. Subclasses may
    override :meth:`extract_error_from_result` to treat some results as failures (a tool
    that returns ``{"status": "error"}`` rather than raising), and ``_get_scope_key`` to
    count per user or per session instead.

    Example:
        >>> app = App(name="shop", root_agent=agent,
        ...           plugins=[ReflectAndRetryToolPlugin(max_retries=2)])

    Attributes:
        max_retries: Consecutive failures of one tool answered with guidance; the next one
            gives up (0: give up at the first failure).
        throw_exception_if_retry_exceeded: On giving up, raise the error (the invocation
            ends with a ``PluginError`` caused by it, as google-adk ends it with a
            ``RuntimeError``), or, when False, tell the model not to use the tool again.
        scope: The :class:`TrackingScope` failures are counted in.
    """

    def __init__(
        self,
        name: str = "reflect_retry_tool_plugin",
        max_retries: int = 3,
        throw_exception_if_retry_exceeded: bool = True,
        tracking_scope: TrackingScope = TrackingScope.INVOCATION,
    ) -> None:
        """Create the plugin.

        Args:
            name: The plugin's name.
            max_retries: Failures of one tool answered with guidance before giving up.
            throw_exception_if_retry_exceeded: Raise the error when giving up (else answer).
            tracking_scope: Count failures per invocation or globally.

        Raises:
            ValueError: ``max_retries`` is negative.
        """
        super().__init__(name)
        if max_retries < 0:
            raise ValueError(f"max_retries must be 0 or more, not {max_retries}.")
        self.max_retries = max_retries
        self.throw_exception_if_retry_exceeded = throw_exception_if_retry_exceeded
        self.scope = tracking_scope
        # scope key -> tool name -> consecutive failures. Each update runs without an await
        # between its read and its write, so concurrent calls on one loop cannot lose one.
        self._failures: dict[str, PerToolFailuresCounter] = {}

    async def after_tool_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        result: Any,
    ) -> dict[str, Any] | None:
        """Count an error found in the result as a failure; reset the count on success.

        Returns:
            The guidance answer for an error found in ``result``, else None.
        """
        if isinstance(result, dict) and result.get("response_type") == (
            REFLECT_AND_RETRY_RESPONSE_TYPE
        ):
            return None  # our own answer to a raised error, coming back through this hook
        error = await self.extract_error_from_result(
            tool=tool, tool_args=tool_args, tool_context=tool_context, result=result
        )
        if error:
            return self._on_failure(tool, tool_args, tool_context, error)
        self._reset_failures_for_tool(tool_context, tool.name)
        return None

    async def extract_error_from_result(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        result: Any,
    ) -> Any:
        """The error a successful call's result reports, or None (override to detect one).

        The default finds none. A subclass returns something truthy (the result itself, a
        message, an exception) for a result that stands for a failure; it is then counted and
        answered as a raised error would be.
        """
        return None

    async def on_tool_error_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        error: Exception,
    ) -> dict[str, Any] | None:
        """Answer a raised error with guidance, or give up (see the class docstring)."""
        if isinstance(error, asyncio.CancelledError):
            return None
        return self._on_failure(tool, tool_args, tool_context, error)

    def _get_scope_key(self, tool_context: ToolContext) -> str:
        """The key failures of this call are counted under (override for another scope).

        Raises:
            ValueError: The scope is per invocation and the context has no invocation id.
        """
        if self.scope is TrackingScope.GLOBAL:
            return GLOBAL_SCOPE_KEY
        if not tool_context.invocation_id:
            raise ValueError("Counting failures per invocation needs the call's invocation_id.")
        return tool_context.invocation_id

    def _reset_failures_for_tool(self, tool_context: ToolContext, tool_name: str) -> None:
        counts = self._failures.get(self._get_scope_key(tool_context))
        if counts is not None:
            counts.pop(tool_name, None)

    def _on_failure(
        self, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext, error: Any
    ) -> dict[str, Any]:
        """Count the failure; the guidance answer, or raise once the retries are used up."""
        if self.max_retries:
            counts = self._failures.setdefault(self._get_scope_key(tool_context), {})
            counts[tool.name] = attempt = counts.get(tool.name, 0) + 1
            if attempt <= self.max_retries:
                return self._answer(tool, tool_args, error, attempt, _retry_guidance)
        if self.throw_exception_if_retry_exceeded:
            raise error if isinstance(error, Exception) else Exception(str(error))
        return self._answer(tool, tool_args, error, self.max_retries, _give_up_guidance)

    def _answer(
        self,
        tool: BaseTool,
        tool_args: dict[str, Any],
        error: Any,
        attempt: int,
        guidance: Any,
    ) -> dict[str, Any]:
        is_exception = isinstance(error, Exception)
        details = f"{type(error).__name__}: {error}" if is_exception else str(error)
        arguments = json.dumps(tool_args, indent=2, default=str)
        text = guidance(tool.name, details, arguments, attempt, self.max_retries)
        return ToolFailureResponse(
            error_type=type(error).__name__ if is_exception else "ToolError",
            error_details=str(error),
            retry_count=attempt,
            reflection_guidance=text,
        ).model_dump(mode="json")


def _retry_guidance(tool: str, details: str, arguments: str, attempt: int, limit: int) -> str:
    return (
        f"Calling the tool `{tool}` did not work (failed attempt {attempt}; at most {limit} "
        f"are allowed).\n\nError:\n```\n{details}\n```\n\nArguments of that call:\n```json\n"
        f"{arguments}\n```\n\nBefore calling a tool again, work out why this failed instead of "
        "repeating the same call:\n"
        "- Are the arguments wrong, malformed or incomplete for the tool's parameters?\n"
        "- Was something this call depends on not done, or did an earlier step fail?\n"
        "- Wrong Function Name: is the tool name one of the tools you have? Call only tools "
        "that exist.\n"
        "- Would another tool, another order of steps, or smaller steps work better?\n"
        "Then make a corrected call or take a different approach."
    )


def _give_up_guidance(tool: str, details: str, arguments: str, attempt: int, limit: int) -> str:
    if limit == 0:
        failed = "failed, and this plugin allows no retries"
    else:
        failed = f"failed {limit} time{'s' if limit > 1 else ''} in a row, all the retries allowed"
    return (
        f"The tool `{tool}` {failed}, so the retry limit has been exceeded. Do not attempt "
        f"to use the `{tool}` tool any more in this task.\n\n"
        f"Last error:\n```\n{details}\n```\n\nLast arguments:\n```json\n{arguments}\n```\n\n"
        "Say that this step failed, then use other tools or another approach, or tell the user "
        "that the task cannot be done."
    )
