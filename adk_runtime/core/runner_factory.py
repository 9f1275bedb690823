"""Nested runs without an upward import: the runner factory the runtime hands down.

An ``AgentTool``'s agent and a ``NodeTool``'s node each run through a Runner of their own.
Those tools sit below the runtime, so they never import it: every context the Runner builds
carries a :class:`RunnerFactory` (``InvocationContext.runner_factory``), and the runtime
registers the same factory here when it is imported, for a context built by hand.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any, Protocol

from adk_runtime.errors import ConfigurationError

if TYPE_CHECKING:  # annotations only: InvocationContext, which BaseAgent imports, imports this
    from google.genai import types

    from adk_runtime.artifacts.base import BaseArtifactService
    from adk_runtime.core.base_agent import BaseAgent
    from adk_runtime.core.plugin_manager import PluginManager
    from adk_runtime.events import Event
    from adk_runtime.memory.base import BaseMemoryService
    from adk_runtime.sessions.base import BaseSessionService

__all__ = ["NestedRunner", "RunnerFactory", "register_runner_factory", "registered_runner_factory"]


class NestedRunner(Protocol):
    """What a nested run uses of the Runner a :class:`RunnerFactory` made."""

    @property
    def app_name(self) -> str:
        """The app its sessions belong to."""
        ...

    @property
    def session_service(self) -> BaseSessionService:
        """Where its sessions are stored."""
        ...

    def run_async(
        self,
        *,
        user_id: str,
        session_id: str,
        new_message: types.Content | None = None,
        invocation_id: str | None = None,
    ) -> AsyncGenerator[Event, None]:
        """Run one invocation (``Runner.run_async``)."""
        ...


class RunnerFactory(Protocol):
    """Makes the Runner a nested run goes through (the runtime provides one)."""

    def __call__(
        self,
        *,
        app_name: str,
        agent: BaseAgent,
        session_service: BaseSessionService,
        artifact_service: BaseArtifactService | None = None,
        memory_service: BaseMemoryService | None = None,
        credential_service: Any = None,
        plugin_manager: PluginManager | None = None,
    ) -> NestedRunner:
        """A Runner of ``agent`` on these services (``plugin_manager``: shared, not copied)."""
        ...


_registered: list[RunnerFactory] = []


def register_runner_factory(factory: RunnerFactory) -> None:
    """Make ``factory`` the one :func:`registered_runner_factory` returns (the runtime's)."""
    _registered[:] = [factory]


def registered_runner_factory() -> RunnerFactory:
    """The factory the runtime registered.

    Raises:
        ConfigurationError: The runtime was never imported in this process.
    """
    if not _registered:
        raise ConfigurationError(
            "No Runner is available for a nested run: import adk_runtime.runners (or "
            "adk_runtime.runtime) first, or pass a runner."
        )
    return _registered[0]
