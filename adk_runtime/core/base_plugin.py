"""BasePlugin: callbacks that apply to every agent, model call and tool call of a Runner.

An agent's own callbacks (``before_agent_callback`` and the rest) apply to that agent only; a
plugin, given to the Runner (``Runner(plugins=[...])`` or ``App(plugins=[...])``), sees every
invocation the Runner drives. Each hook is an ``async`` method with keyword arguments; the
base class implements all of them as "do nothing" (return None), so a plugin overrides only
the hooks it needs.

Order and short-circuit: plugins run in the order they were given, and before the agent's
own callbacks for the same hook. The first hook that returns a value other than None wins:
the later plugins and the agent's callbacks for that hook are skipped and the value is used
(the model response, tool result, content or event it stands for). The error hooks
``on_agent_error_callback`` and ``on_run_error_callback`` only observe: every plugin is told
and the error goes on.
"""

from __future__ import annotations

from abc import ABC
from typing import TYPE_CHECKING, Any, TypeVar

from google.genai import types

if TYPE_CHECKING:
    from adk_runtime.core.base_agent import BaseAgent
    from adk_runtime.core.base_tool import BaseTool
    from adk_runtime.core.callback_context import CallbackContext
    from adk_runtime.core.invocation_context import InvocationContext
    from adk_runtime.core.tool_context import ToolContext
    from adk_runtime.events import Event
    from adk_runtime.models.llm_request import LlmRequest
    from adk_runtime.models.llm_response import LlmResponse

__all__ = ["BasePlugin", "T"]

T = TypeVar("T")


class BasePlugin(ABC):  # noqa: B024 - every hook has a default on purpose
    """The base of every plugin: override the hooks you need.

    Attributes:
        name: The plugin's name, unique among a Runner's plugins.

    Example:
        >>> class CountTools(BasePlugin):
        ...     def __init__(self) -> None:
        ...         super().__init__(name="count_tools")
        ...         self.calls = 0
        ...     async def before_tool_callback(self, *, tool, tool_args, tool_context):
        ...         self.calls += 1
        ...         return None
    """

    def __init__(self, name: str) -> None:
        """Create the plugin.

        Args:
            name: Its name, unique among the plugins of one Runner.
        """
        super().__init__()
        self.name = name

    async def on_user_message_callback(
        self, *, invocation_context: InvocationContext, user_message: types.Content
    ) -> types.Content | None:
        """Called with the user's message before it is stored.

        Returns:
            A replacement message (it is what is stored and what the agents see), or None.
        """
        return None

    async def before_run_callback(
        self, *, invocation_context: InvocationContext
    ) -> types.Content | None:
        """Called once per invocation, before the agent runs.

        Returns:
            Content to answer with instead of running the agent (stored as one event by
            ``model``, then the invocation ends), or None.
        """
        return None

    async def on_event_callback(
        self, *, invocation_context: InvocationContext, event: Event
    ) -> Event | None:
        """Called with each event the agents yield, before it is stored and yielded.

        Returns:
            An event whose explicitly set fields replace the original's (its ``id``,
            ``invocation_id`` and ``timestamp`` are kept): what is stored and yielded. None
            keeps the event (changes made to it in place are stored too).
        """
        return None

    async def after_run_callback(self, *, invocation_context: InvocationContext) -> None:
        """Called once the invocation ended normally (not when it failed)."""
        return None

    async def on_run_error_callback(
        self, *, invocation_context: InvocationContext, error: Exception
    ) -> None:
        """Called when the invocation fails with ``error`` (which then reaches the caller)."""
        return None

    async def close(self) -> None:
        """Release what the plugin holds; called by ``Runner.close()``."""
        return None

    async def before_agent_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext
    ) -> types.Content | None:
        """Called before an agent runs.

        Returns:
            Content that replaces the agent's run (the invocation then ends), or None.
        """
        return None

    async def after_agent_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext
    ) -> types.Content | None:
        """Called after an agent ran.

        Returns:
            Content yielded as one more event of the agent, or None.
        """
        return None

    async def on_agent_error_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext, error: Exception
    ) -> None:
        """Called when an agent's run raises ``error`` (which then goes on)."""
        return None

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        """Called before each model call (the request may be changed in place).

        Returns:
            A response used instead of calling the model, or None.
        """
        return None

    async def after_model_callback(
        self, *, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> LlmResponse | None:
        """Called with each complete model response.

        Returns:
            A response that replaces it, or None.
        """
        return None

    async def on_model_error_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest, error: Exception
    ) -> LlmResponse | None:
        """Called when the model call raises ``error``.

        Returns:
            A response to use instead of failing, or None (the error goes on).
        """
        return None

    async def before_tool_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        """Called before a tool runs (``tool_args`` may be changed in place).

        Returns:
            A result used instead of running the tool, or None.
        """
        return None

    async def after_tool_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        result: dict[str, Any],
    ) -> dict[str, Any] | None:
        """Called with a tool's result.

        Returns:
            A result that replaces it, or None.
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
        """Called when a tool raises ``error``.

        Returns:
            A result to give the model instead of the error, or None (the error goes on).
        """
        return None
