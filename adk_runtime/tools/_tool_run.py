"""A tool's own run (an ``AgentTool``'s agent, a ``NodeTool``'s node): a Runner of its own.

The run's session lives on a fresh in-memory store, seeded with a copy of the caller's state;
its artifacts go to the caller's session (recorded in the tool's ``artifact_delta``), and it
uses the calling Runner's memory and credential services (its tools find the user's saved
sign-ins) and, if asked, its plugins (shared, not copied: the calling Runner closes them).
The Runner comes from the factory on the caller's context (``InvocationContext.runner_factory``,
set by the runtime), so tools never import the runtime.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from adk_runtime.core.runner_factory import NestedRunner, registered_runner_factory
from adk_runtime.platform import uuid as platform_uuid
from adk_runtime.sessions.memory import InMemorySessionService
from adk_runtime.tools._forwarding_artifact_service import ForwardingArtifactService

if TYPE_CHECKING:
    from adk_runtime.core.base_agent import BaseAgent
    from adk_runtime.core.tool_context import ToolContext
    from adk_runtime.sessions.session import Session

__all__ = ["tool_run"]


async def tool_run(
    tool_context: ToolContext, agent: BaseAgent, *, share_plugins: bool = True
) -> tuple[NestedRunner, Session]:
    """A Runner for ``agent``, and the fresh session it runs on (see the module)."""
    ctx = tool_context.invocation_context
    factory = ctx.runner_factory or registered_runner_factory()
    service = InMemorySessionService()
    runner = factory(
        app_name=ctx.app_name,
        agent=agent,
        session_service=service,
        artifact_service=ForwardingArtifactService(tool_context) if ctx.artifact_service else None,
        memory_service=ctx.memory_service,
        credential_service=ctx.credential_service,
        plugin_manager=ctx.plugin_manager if share_plugins else None,
    )
    session = await service.create_session(
        app_name=ctx.app_name,
        user_id=ctx.user_id,
        session_id=platform_uuid.new_uuid(),
        state=tool_context.state.to_dict(),
    )
    return runner, session
