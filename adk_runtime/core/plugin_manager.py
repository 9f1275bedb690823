"""PluginManager: a Runner's plugins, in order, and how each hook is run on them."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, Literal

from google.genai import types

from adk_runtime.core.base_plugin import BasePlugin
from adk_runtime.errors import InputValidationError, PluginError

if TYPE_CHECKING:
    from adk_runtime.core.base_agent import BaseAgent
    from adk_runtime.core.base_tool import BaseTool
    from adk_runtime.core.callback_context import CallbackContext
    from adk_runtime.core.invocation_context import InvocationContext
    from adk_runtime.core.tool_context import ToolContext
    from adk_runtime.events import Event
    from adk_runtime.models.llm_request import LlmRequest
    from adk_runtime.models.llm_response import LlmResponse

__all__ = ["PluginCallbackName", "PluginManager"]

logger = logging.getLogger(__name__)

PluginCallbackName = Literal[
    "on_user_message_callback",
    "before_run_callback",
    "after_run_callback",
    "on_event_callback",
    "before_agent_callback",
    "after_agent_callback",
    "before_tool_callback",
    "after_tool_callback",
    "before_model_callback",
    "after_model_callback",
    "on_tool_error_callback",
    "on_model_error_callback",
    "on_agent_error_callback",
    "on_run_error_callback",
]


class PluginManager:
    """The plugins of a Runner, run in the order they were registered.

    For each hook, the plugins are called one after the other until one returns a value
    other than None: that value is returned and the remaining plugins are not called. A hook
    that raises stops the run with :class:`PluginError` (its exception chained). The two
    error hooks (``on_agent_error_callback``, ``on_run_error_callback``) only notify: every
    plugin is called, and one that raises is logged and skipped.

    Attributes:
        plugins: The registered plugins, in order.
    """

    def __init__(self, plugins: list[BasePlugin] | None = None, close_timeout: float = 5.0) -> None:
        """Register ``plugins`` in order.

        Args:
            plugins: The plugins.
            close_timeout: The seconds each plugin's ``close()`` may take.

        Raises:
            InputValidationError: Two plugins have the same name.
        """
        self.plugins: list[BasePlugin] = []
        self._close_timeout = close_timeout
        self._skip_closing_plugins = False
        for plugin in plugins or []:
            self.register_plugin(plugin)

    def set_skip_closing_plugins(self, value: bool) -> None:
        """With True, ``close()`` leaves the plugins open (another component owns them)."""
        self._skip_closing_plugins = value

    def register_plugin(self, plugin: BasePlugin) -> None:
        """Add ``plugin`` after the others.

        Raises:
            InputValidationError: A plugin of that name is registered already.
        """
        if self.get_plugin(plugin.name) is not None:
            raise InputValidationError(
                f"Plugin with name {plugin.name!r} already registered; give each plugin a "
                "unique name."
            )
        self.plugins.append(plugin)

    def overrides(self, hook: str) -> bool:
        """Whether a registered plugin has a ``hook`` of its own (not ``BasePlugin``'s no-op).

        A hook set on the plugin object itself counts, as one its class defines does.
        """
        default = getattr(BasePlugin, hook)
        return any(
            getattr(getattr(plugin, hook), "__func__", None) is not default
            for plugin in self.plugins
        )

    def get_plugin(self, plugin_name: str) -> BasePlugin | None:
        """The registered plugin called ``plugin_name``, or None."""
        return next((plugin for plugin in self.plugins if plugin.name == plugin_name), None)

    async def run_on_user_message_callback(
        self, *, user_message: types.Content, invocation_context: InvocationContext
    ) -> types.Content | None:
        """Run ``on_user_message_callback``; the first replacement message, or None."""
        return await self._first(  # type: ignore[no-any-return]
            "on_user_message_callback",
            user_message=user_message,
            invocation_context=invocation_context,
        )

    async def run_before_run_callback(
        self, *, invocation_context: InvocationContext
    ) -> types.Content | None:
        """Run ``before_run_callback``; the first content returned, or None."""
        return await self._first(  # type: ignore[no-any-return]
            "before_run_callback", invocation_context=invocation_context
        )

    async def run_after_run_callback(self, *, invocation_context: InvocationContext) -> None:
        """Run ``after_run_callback`` on the plugins."""
        await self._first("after_run_callback", invocation_context=invocation_context)

    async def run_on_event_callback(
        self, *, invocation_context: InvocationContext, event: Event
    ) -> Event | None:
        """Run ``on_event_callback``; the first replacement event, or None."""
        return await self._first(  # type: ignore[no-any-return]
            "on_event_callback", invocation_context=invocation_context, event=event
        )

    async def run_before_agent_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext
    ) -> types.Content | None:
        """Run ``before_agent_callback``; the first content returned, or None."""
        return await self._first(  # type: ignore[no-any-return]
            "before_agent_callback", agent=agent, callback_context=callback_context
        )

    async def run_after_agent_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext
    ) -> types.Content | None:
        """Run ``after_agent_callback``; the first content returned, or None."""
        return await self._first(  # type: ignore[no-any-return]
            "after_agent_callback", agent=agent, callback_context=callback_context
        )

    async def run_before_tool_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        """Run ``before_tool_callback``; the first result returned, or None."""
        return await self._first(  # type: ignore[no-any-return]
            "before_tool_callback", tool=tool, tool_args=tool_args, tool_context=tool_context
        )

    async def run_after_tool_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        result: dict[str, Any],
    ) -> dict[str, Any] | None:
        """Run ``after_tool_callback``; the first replacement result, or None."""
        return await self._first(  # type: ignore[no-any-return]
            "after_tool_callback",
            tool=tool,
            tool_args=tool_args,
            tool_context=tool_context,
            result=result,
        )

    async def run_on_tool_error_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        error: Exception,
    ) -> dict[str, Any] | None:
        """Run ``on_tool_error_callback``; the first result returned, or None."""
        return await self._first(  # type: ignore[no-any-return]
            "on_tool_error_callback",
            tool=tool,
            tool_args=tool_args,
            tool_context=tool_context,
            error=error,
        )

    async def run_before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        """Run ``before_model_callback``; the first response returned, or None."""
        return await self._first(  # type: ignore[no-any-return]
            "before_model_callback", callback_context=callback_context, llm_request=llm_request
        )

    async def run_after_model_callback(
        self, *, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> LlmResponse | None:
        """Run ``after_model_callback``; the first replacement response, or None."""
        return await self._first(  # type: ignore[no-any-return]
            "after_model_callback", callback_context=callback_context, llm_response=llm_response
        )

    async def run_on_model_error_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest, error: Exception
    ) -> LlmResponse | None:
        """Run ``on_model_error_callback``; the first response returned, or None."""
        return await self._first(  # type: ignore[no-any-return]
            "on_model_error_callback",
            callback_context=callback_context,
            llm_request=llm_request,
            error=error,
        )

    async def run_on_agent_error_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext, error: Exception
    ) -> None:
        """Tell every plugin that ``agent`` failed with ``error``."""
        await self._notify(
            "on_agent_error_callback", agent=agent, callback_context=callback_context, error=error
        )

    async def run_on_run_error_callback(
        self, *, invocation_context: InvocationContext, error: Exception
    ) -> None:
        """Tell every plugin that the invocation failed with ``error``."""
        await self._notify(
            "on_run_error_callback", invocation_context=invocation_context, error=error
        )

    async def _first(self, hook: PluginCallbackName, **kwargs: Any) -> Any:
        """Call ``hook`` on each plugin until one returns a value; return it (or None).

        Raises:
            PluginError: A plugin's hook raised (its exception is the cause).
        """
        for plugin in self.plugins:
            try:
                result = await getattr(plugin, hook)(**kwargs)
            except Exception as exc:
                logger.error("Plugin %r failed in %s: %s", plugin.name, hook, type(exc).__name__)
                raise PluginError(
                    f"Error in plugin {plugin.name!r}: {hook} raised {type(exc).__name__}: {exc}"
                ) from exc
            if result is not None:
                return result
        return None

    async def _notify(self, hook: PluginCallbackName, **kwargs: Any) -> None:
        for plugin in self.plugins:
            try:
                await getattr(plugin, hook)(**kwargs)
            except Exception as exc:
                logger.error("Plugin %r failed in %s: %s", plugin.name, hook, type(exc).__name__)

    async def close(self) -> None:
        """Close every plugin, one after the other, each within ``close_timeout`` seconds.

        Every plugin is closed even when some fail; a cancellation is re-raised after the
        others were closed.

        Raises:
            PluginError: Some plugins failed to close or timed out (named in the message).
        """
        if self._skip_closing_plugins:
            return
        failed: dict[str, str] = {}
        cancelled: asyncio.CancelledError | None = None
        for plugin in self.plugins:
            try:
                await asyncio.wait_for(plugin.close(), self._close_timeout)
            except asyncio.CancelledError as exc:
                cancelled = exc
            except Exception as exc:  # TimeoutError included
                failed[plugin.name] = type(exc).__name__
                logger.error("Closing plugin %r failed: %s", plugin.name, type(exc).__name__)
        if cancelled is not None:
            raise cancelled
        if failed:
            listed = ", ".join(f"{name!r}: {error}" for name, error in failed.items())
            raise PluginError(f"Failed to close plugins: {listed}")
