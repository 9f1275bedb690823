"""google-adk's path; the names live in :mod:`adk_runtime.core.base_toolset`."""

from adk_runtime.core.base_toolset import BaseToolset, SelfToolset, ToolPredicate

__all__ = ["BaseToolset", "SelfToolset", "ToolPredicate"]
