"""What may stand for an agent or a tool besides a ``BaseAgent`` or a ``BaseTool``.

An upper layer registers the conversion and the core applies it, importing none of them: the
workflow package lets a node run as the root agent (a ``NodeAgent``) and be offered among an
agent's tools (a ``NodeTool``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["as_agent", "as_tools", "register_agent_adapter", "register_tool_adapter"]

_agent_adapters: list[Callable[[Any], Any]] = []
_tool_adapters: list[Callable[[Any], Any]] = []


def register_agent_adapter(adapter: Callable[[Any], Any]) -> None:
    """Let ``adapter`` turn what is passed as an agent into one (it returns others as given)."""
    if adapter not in _agent_adapters:
        _agent_adapters.append(adapter)


def register_tool_adapter(adapter: Callable[[Any], Any]) -> None:
    """Let ``adapter`` turn an entry of an agent's tools into a tool (others as given)."""
    if adapter not in _tool_adapters:
        _tool_adapters.append(adapter)


def as_agent(value: Any) -> Any:
    """``value`` through every registered agent adapter."""
    for adapter in _agent_adapters:
        value = adapter(value)
    return value


def as_tools(value: Any) -> Any:
    """A list or tuple of tool entries with each passed through the tool adapters."""
    if not _tool_adapters or not isinstance(value, list | tuple):
        return value
    converted = []
    for tool in value:
        for adapter in _tool_adapters:
            tool = adapter(tool)
        converted.append(tool)
    unchanged = all(new is old for new, old in zip(converted, value, strict=True))
    return value if unchanged else converted
