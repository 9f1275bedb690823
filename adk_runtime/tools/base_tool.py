"""google-adk's path; the names live in :mod:`adk_runtime.core.base_tool`."""

from adk_runtime.core.base_tool import BaseTool, SelfTool

__all__ = ["BaseTool", "SelfTool"]
