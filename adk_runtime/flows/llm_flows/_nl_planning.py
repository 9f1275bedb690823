"""``google.adk.flows.llm_flows._nl_planning`` → here: the planner's steps of a model call.

The same functions the LLM flow calls (``adk_runtime.agents._step_hooks``): on the request,
``apply_planner`` (a ``BuiltInPlanner`` sets the thinking config; another planner adds its
planning instruction and the request's contents lose their thought flags); on a complete
response, ``planned_parts`` (the planner's rewrite of the parts; a ``BuiltInPlanner`` only
when a subclass overrides ``process_planning_response``).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING

from adk_runtime.agents import _step_hooks
from adk_runtime.core.callback_context import CallbackContext
from adk_runtime.events import Event
from adk_runtime.flows.llm_flows._base_llm_processor import (
    BaseLlmResponseProcessor,
    _Filler,
    llm_agent_of,
)

if TYPE_CHECKING:
    from adk_runtime.core.invocation_context import InvocationContext
    from adk_runtime.models.llm_request import LlmRequest
    from adk_runtime.models.llm_response import LlmResponse

__all__ = ["request_processor", "response_processor"]


class _NlPlanningRequestProcessor(_Filler):
    """Lets the agent's planner shape the request."""

    name = "nl_planning"

    async def _fill(self, invocation_context: InvocationContext, llm_request: LlmRequest) -> None:
        agent = llm_agent_of(invocation_context)
        _step_hooks.apply_planner(agent, invocation_context, llm_request)


class _NlPlanningResponse(BaseLlmResponseProcessor):
    """Lets the agent's planner rewrite a complete response's parts (in place).

    State the planner writes comes out as an event of its own (in the LLM flow it rides on
    the response's event).
    """

    name = "nl_planning"

    async def run_async(
        self, invocation_context: InvocationContext, llm_response: LlmResponse
    ) -> AsyncGenerator[Event, None]:
        """Rewrite ``llm_response.content``'s parts; yield an event with the planner's state."""
        content = llm_response.content
        if content is None or llm_response.partial:
            return
        agent = llm_agent_of(invocation_context)
        callback_context = CallbackContext(invocation_context)
        parts = _step_hooks.planned_parts(agent, content, callback_context)
        if parts:
            llm_response.content = content.model_copy(update={"parts": parts})
        if not callback_context.actions.is_empty():
            yield Event(
                invocation_id=invocation_context.invocation_id,
                author=agent.name,
                branch=invocation_context.branch,
                actions=callback_context.actions,
            )


def _remove_thought_from_request(llm_request: LlmRequest) -> None:
    """Take the thought flags off the request's contents.

    The contents are replaced by copies, so the session's events (which the contents may
    share parts with) keep their flags.
    """
    _step_hooks.remove_thoughts(llm_request)


request_processor = _NlPlanningRequestProcessor()
response_processor = _NlPlanningResponse()
