"""The interface of an agent loader: agents (or Apps) by name, and the names on offer."""

from __future__ import annotations

from abc import ABC, abstractmethod

from adk_runtime.apps.app import App
from adk_runtime.core.base_agent import BaseAgent

__all__ = ["BaseAgentLoader"]


class BaseAgentLoader(ABC):
    """Loads agents by name (google-adk's ``cli.utils.base_agent_loader``)."""

    @abstractmethod
    def load_agent(self, agent_name: str) -> BaseAgent | App:
        """The root agent, or the App, published under ``agent_name``."""

    @abstractmethod
    def list_agents(self) -> list[str]:
        """The names :meth:`load_agent` accepts, sorted."""
