"""Tool results that report a failure without raising: the rules the observability plugins share.

A result is a failure when it is an answer of ``ReflectAndRetryToolPlugin`` (the tool raised),
when the application's ``tool_result_classifier`` says so, or when it carries an MCP
``isError`` (or ``is_error``) flag set to True.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import logging
from typing import TYPE_CHECKING, Any, Literal, Protocol

from adk_runtime.plugins.reflect_retry_tool_plugin import REFLECT_AND_RETRY_RESPONSE_TYPE

if TYPE_CHECKING:
    from adk_runtime.core.base_tool import BaseTool
    from adk_runtime.core.tool_context import ToolContext

__all__ = ["ToolResultClassification", "ToolResultClassifier", "check_classifier", "failure_of"]

logger = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class ToolResultClassification:
    """A ``tool_result_classifier``'s verdict on one tool result.

    Attributes:
        status: ``"ERROR"`` records the call as a tool error; ``"OK"`` as a completed call
            (also when the result has an MCP ``isError`` flag).
        error_message: What is recorded for ``"ERROR"`` (a fixed text when empty).

    Raises:
        ValueError: ``status`` is not ``"OK"`` or ``"ERROR"``, or ``error_message`` is not a
            string or None.
    """

    status: Literal["OK", "ERROR"]
    error_message: str | None = None

    def __post_init__(self) -> None:
        if self.status not in ("OK", "ERROR"):
            raise ValueError(f"status must be 'OK' or 'ERROR', not {self.status!r}.")
        if self.error_message is not None and not isinstance(self.error_message, str):
            raise ValueError("error_message must be a string or None.")


class ToolResultClassifier(Protocol):
    """A synchronous function that says whether a tool's result reports a failure.

    It is called with the keyword arguments of ``after_tool_callback`` and returns a
    :class:`ToolResultClassification`, or None to leave the result to the built-in rules. It
    must not change its arguments.
    """

    def __call__(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext, result: Any
    ) -> ToolResultClassification | None:
        """Classify ``result``."""
        ...


def check_classifier(classifier: Any) -> None:
    if classifier is None:
        return
    if not callable(classifier):
        raise ValueError(
            f"tool_result_classifier must be callable, not {type(classifier).__name__}."
        )
    target = classifier
    while isinstance(target, functools.partial):
        target = target.func
    candidates = (classifier, target, getattr(target, "__call__", None))  # noqa: B004
    if any(inspect.iscoroutinefunction(c) or inspect.isasyncgenfunction(c) for c in candidates):
        raise ValueError(
            "tool_result_classifier must be a plain (synchronous) function: the plugin calls it "
            "without awaiting it."
        )
    try:
        inspect.signature(classifier).bind(
            tool=None, tool_args=None, tool_context=None, result=None
        )
    except (TypeError, ValueError) as exc:
        raise ValueError(
            "tool_result_classifier must take the keyword arguments tool, tool_args, "
            "tool_context and result."
        ) from exc


def failure_of(
    classifier: ToolResultClassifier | None,
    tool: BaseTool,
    tool_args: dict[str, Any],
    tool_context: ToolContext,
    result: Any,
) -> str | None:
    """The failure ``result`` reports (the text recorded), or None when the call succeeded."""
    fields = result if isinstance(result, dict) else {}
    if fields.get("response_type") == REFLECT_AND_RETRY_RESPONSE_TYPE:
        details = fields.get("error_details") or fields.get("error_type")
        return str(details) if details else "The tool failed; ReflectAndRetryToolPlugin answered."
    if classifier is not None:
        verdict: Any = None
        try:
            verdict = classifier(
                tool=tool, tool_args=tool_args, tool_context=tool_context, result=result
            )
        except Exception:
            verdict = _UNUSABLE
        if inspect.iscoroutine(verdict):
            verdict.close()
        if isinstance(verdict, ToolResultClassification):
            if verdict.status == "OK":
                return None
            return verdict.error_message or "tool_result_classifier said the result is an error."
        if verdict is not None:
            logger.warning(
                "tool_result_classifier failed or gave no ToolResultClassification for tool %s; "
                "the built-in rules apply.",
                tool.name,
            )
    flagged = fields if fields else getattr(result, "__dict__", {})
    if flagged.get("isError") is True or flagged.get("is_error") is True:
        return "The tool returned an MCP result flagged isError."
    return None


_UNUSABLE = object()
