"""The ``tools:`` entries of an LLM agent YAML file (google-adk's ``tools.tool_configs``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["BaseToolConfig", "ToolArgsConfig", "ToolConfig"]


class BaseToolConfig(BaseModel):
    """The base of a tool's own config model (its ``args``, validated by the tool)."""

    model_config = ConfigDict(extra="forbid")


class ToolArgsConfig(BaseModel):
    """The ``args`` of a ``tools:`` entry: free keys, read by the tool class or function."""

    model_config = ConfigDict(extra="allow")


class ToolConfig(BaseModel):
    """One ``tools:`` entry.

    ``name`` is either a built-in tool of ``adk_runtime.tools`` (``google_search``,
    ``load_memory``, ``exit_loop``, ``url_context``, ``AgentTool``...) or a dotted path to a
    tool object, a toolset, a function (offered as a ``FunctionTool``), a ``BaseTool`` /
    ``BaseToolset`` class (built from ``args``) or a function that returns a tool (called with
    ``args``). Naming code imports and runs it: load only config files you trust.

    Attributes:
        name: The built-in name or dotted path.
        args: Constructor arguments of a tool class, or the argument of a tool factory.
    """

    model_config = ConfigDict(extra="forbid")

    name: str
    args: ToolArgsConfig | None = None
