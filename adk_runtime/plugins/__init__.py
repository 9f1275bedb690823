"""Plugins: callbacks a Runner applies to every agent, model call and tool call it drives."""

from adk_runtime.plugins.base_plugin import BasePlugin
from adk_runtime.plugins.logging_plugin import LoggingPlugin
from adk_runtime.plugins.plugin_manager import PluginManager
from adk_runtime.plugins.reflect_retry_tool_plugin import ReflectAndRetryToolPlugin

__all__ = ["BasePlugin", "LoggingPlugin", "PluginManager", "ReflectAndRetryToolPlugin"]
