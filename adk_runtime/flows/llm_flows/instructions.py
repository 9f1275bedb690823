"""``google.adk.flows.llm_flows.instructions`` → here: the instruction step of a request.

The same function the LLM flow calls (``adk_runtime.agents._step_hooks.add_instructions``):
the root agent's ``global_instruction``, the agent's ``static_instruction`` and its
``instruction`` with ``{key}`` placeholders filled from the state (a provider's text is used
as it is). With a static instruction, the rendered ``instruction`` is not put in the system
instruction but added to ``llm_request.contents``, for the contents step
(:mod:`adk_runtime.flows.llm_flows.contents`) to place before the latest user turn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from adk_runtime.agents import _step_hooks
from adk_runtime.flows.llm_flows._base_llm_processor import _Filler, llm_agent_of

if TYPE_CHECKING:
    from adk_runtime.core.invocation_context import InvocationContext
    from adk_runtime.models.llm_request import LlmRequest

__all__ = ["request_processor"]


class _InstructionsLlmRequestProcessor(_Filler):
    """Adds the agent's instructions to the request."""

    name = "instructions"

    async def _fill(self, invocation_context: InvocationContext, llm_request: LlmRequest) -> None:
        agent = llm_agent_of(invocation_context)
        extra = await _step_hooks.add_instructions(agent, invocation_context, llm_request)
        llm_request.contents.extend(extra)


request_processor = _InstructionsLlmRequestProcessor()
