"""google-adk's path; the names live in :mod:`adk_runtime.core.base_plugin`."""

from adk_runtime.core.base_plugin import BasePlugin, T

__all__ = ["BasePlugin", "T"]
