"""The flow's step for models on Gemini's Interactions API: continue the agent's interaction.

With ``Gemini(use_interactions_api=True)`` the API holds the conversation. A model request
names the agent's last interaction, read from the session's stored events (the newest event
of the agent, in its branch as its contents see it and in its scope, that carries an
``interaction_id`` and no error), and then carries only the current turn. Since the id is
stored with the event, the chain goes on across restarts and replicas; a session without
one (a new one, or a model switched to the API mid-session) starts a new interaction with
the whole history.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from adk_runtime.agents._contents import in_branch

if TYPE_CHECKING:
    from adk_runtime.agents.llm_agent import LlmAgent
    from adk_runtime.core.invocation_context import InvocationContext
    from adk_runtime.events import Event
    from adk_runtime.models.llm_request import LlmRequest

__all__ = ["prepare_request", "previous_interaction"]

logger = logging.getLogger(__name__)

_warned_invocation: str | None = None
"""The invocation that last warned of a service tier its model cannot apply."""


def previous_interaction(
    events: list[Event], agent_name: str, branch: str | None, scope: str | None = None
) -> tuple[str | None, str | None]:
    """The ``(interaction_id, environment_id)`` the agent's next request continues."""
    for event in reversed(events):
        if event.isolation_scope != scope or not in_branch(branch, event):
            continue
        if event.author == agent_name and event.interaction_id and not event.error_code:
            return event.interaction_id, event.environment_id
    return None, None


def prepare_request(agent: LlmAgent, ctx: InvocationContext, request: LlmRequest) -> None:
    """Set ``previous_interaction_id`` and ``service_tier`` for an Interactions API model.

    Other models get neither; a ``RunConfig.service_tier`` they cannot apply is warned about
    once per invocation.
    """
    global _warned_invocation
    tier = ctx.run_config.service_tier
    if getattr(agent.canonical_model, "use_interactions_api", False) is not True:
        if tier is not None and _warned_invocation != ctx.invocation_id:
            _warned_invocation = ctx.invocation_id
            logger.warning(
                "RunConfig.service_tier=%r does nothing for agent %s: only Gemini with "
                "use_interactions_api=True has serving tiers.",
                str(tier),
                agent.name,
            )
        return
    request.service_tier = tier
    request.previous_interaction_id, _ = previous_interaction(
        ctx.session.events, agent.name, ctx.branch, ctx.isolation_scope
    )
