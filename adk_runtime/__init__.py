"""adk_runtime: a durable, transactional ADK Runtime.

The public API mirrors google-adk: ``google.adk.X`` → ``adk_runtime.X``. As in google-adk,
the package itself offers the names most code starts with (``from adk_runtime import Agent,
Event, Runner``), imported on first use so that ``import adk_runtime`` stays light.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from adk_runtime.agents.context import Context
    from adk_runtime.agents.llm_agent import Agent
    from adk_runtime.events.event import Event
    from adk_runtime.runners import Runner
    from adk_runtime.workflow import Workflow

from adk_runtime.version import __version__ as __version__

__all__ = ["Agent", "Context", "Event", "Runner", "Workflow"]

_LAZY = {
    "Agent": "adk_runtime.agents.llm_agent",
    "Context": "adk_runtime.agents.context",
    "Event": "adk_runtime.events.event",
    "Runner": "adk_runtime.runners",
    "Workflow": "adk_runtime.workflow",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'adk_runtime' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
