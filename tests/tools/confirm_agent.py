"""An agent whose tool needs the user's confirmation, for the HTTP tests (offline model)."""

from __future__ import annotations

from typing import Any

from adk_runtime.agents import LlmAgent
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import FunctionTool, ToolContext


def delete_file(path: str, tool_context: ToolContext) -> dict[str, Any]:
    """Delete a file (pretend)."""
    tool_context.state["deleted"] = path
    return {"deleted": path}


root_agent = LlmAgent(
    name="files",
    model=ScriptedModel(
        replies=[function_call("delete_file", {"path": "/tmp/a.txt"}, id="d1"), "deleted it"]
    ),
    tools=[FunctionTool(delete_file, require_confirmation=True)],
)
