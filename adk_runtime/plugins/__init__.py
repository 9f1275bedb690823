"""Plugins: callbacks a Runner applies to every agent, model call and tool call it drives."""

from adk_runtime.core.base_plugin import BasePlugin
from adk_runtime.core.plugin_manager import PluginManager
from adk_runtime.plugins._reflect_retry_model_plugin import ReflectAndRetryModelPlugin
from adk_runtime.plugins._tool_call_integrity_plugin import (
    ToolCallIntegrityError,
    ToolCallIntegrityPlugin,
)
from adk_runtime.plugins._tool_results import ToolResultClassification, ToolResultClassifier
from adk_runtime.plugins.debug_logging_plugin import DebugLoggingPlugin
from adk_runtime.plugins.logging_plugin import LoggingPlugin
from adk_runtime.plugins.reflect_retry_tool_plugin import ReflectAndRetryToolPlugin

__all__ = [
    "BasePlugin",
    "DebugLoggingPlugin",
    "LoggingPlugin",
    "PluginManager",
    "ReflectAndRetryModelPlugin",
    "ReflectAndRetryToolPlugin",
    "ToolCallIntegrityError",
    "ToolCallIntegrityPlugin",
    "ToolResultClassification",
    "ToolResultClassifier",
]
