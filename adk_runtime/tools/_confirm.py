"""``require_confirmation`` of function and MCP tools: ask first, run only once confirmed."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeAlias

from adk_runtime import _callbacks

if TYPE_CHECKING:
    from adk_runtime.core.tool_context import ToolContext

__all__ = ["RequireConfirmation", "gate", "requires_confirmation"]

RequireConfirmation: TypeAlias = bool | Callable[..., Any]
"""True, or a predicate of the call's arguments (and ``tool_context`` if it takes one)."""

PENDING = "Waiting for the user to approve or reject this tool call."
REJECTED = "This tool call is rejected."


async def requires_confirmation(
    require: RequireConfirmation, args: dict[str, Any], tool_context: ToolContext
) -> bool:
    """Whether this call needs the user's confirmation (a sync predicate runs in a thread)."""
    if not callable(require):
        return bool(require)
    try:
        params: Mapping[str, inspect.Parameter] = inspect.signature(require).parameters
    except (TypeError, ValueError):
        params = {}
    takes_all = any(p.kind is p.VAR_KEYWORD for p in params.values())
    kwargs = {k: v for k, v in args.items() if takes_all or k in params}
    if "tool_context" in params:
        kwargs["tool_context"] = tool_context
    return bool(await _callbacks.invoke(require, **kwargs))


async def gate(
    name: str, require: RequireConfirmation, args: dict[str, Any], tool_context: ToolContext
) -> dict[str, str] | None:
    """None when the call may run; otherwise the response to give instead.

    A call that needs confirmation and has none yet asks for it (``request_confirmation``)
    and answers that it waits; a call the user rejected answers that it was rejected.
    """
    if not await requires_confirmation(require, args, tool_context):
        return None
    confirmation = tool_context.tool_confirmation
    if confirmation is None:
        tool_context.request_confirmation(
            hint=(
                f"Please approve or reject the tool call {name}() by responding with a "
                "FunctionResponse with an expected ToolConfirmation payload."
            )
        )
        tool_context.actions.skip_summarization = True
        return {"error": PENDING}
    if not confirmation.confirmed:
        return {"error": REJECTED}
    return None
