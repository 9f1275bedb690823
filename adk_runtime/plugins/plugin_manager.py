"""google-adk's path; the names live in :mod:`adk_runtime.core.plugin_manager`."""

from adk_runtime.core.plugin_manager import PluginCallbackName, PluginManager

__all__ = ["PluginCallbackName", "PluginManager"]
