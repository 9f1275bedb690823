"""``google.adk.flows.llm_flows.contents`` → here: the conversation step of a request.

The contents are what the LLM flow sends (``adk_runtime.agents._llm_flow.conversation``):
the session's history as the agent sees it (its branch; other agents' turns retold as
context; function responses right after their calls; compaction summaries in place of the
events they cover), with ``RunConfig.model_input_context`` before the user's message.
Contents already on the request (an instruction the instructions step left there) are kept
and placed right before the latest user turn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from adk_runtime.agents import _llm_flow, _step_hooks
from adk_runtime.flows.llm_flows._base_llm_processor import _Filler, llm_agent_of

if TYPE_CHECKING:
    from google.genai import types

    from adk_runtime.agents.invocation_context import InvocationContext
    from adk_runtime.models.llm_request import LlmRequest

__all__ = ["request_processor"]


class _ContentLlmRequestProcessor(_Filler):
    """Replaces the request's contents with the conversation the agent's model is sent."""

    name = "contents"

    async def _fill(self, invocation_context: InvocationContext, llm_request: LlmRequest) -> None:
        agent = llm_agent_of(invocation_context)
        carried = list(llm_request.contents)
        llm_request.contents = _llm_flow.conversation(agent, invocation_context)
        await _add_instructions_to_user_content(invocation_context, llm_request, carried)


async def _add_instructions_to_user_content(
    invocation_context: InvocationContext,
    llm_request: LlmRequest,
    instruction_contents: list[types.Content],
) -> None:
    """Place ``instruction_contents`` right before the trailing user turns of the request.

    When the contents do not end with a user turn they are appended at the end.
    """
    _step_hooks._insert_before_last_user_turn(llm_request, instruction_contents)


request_processor = _ContentLlmRequestProcessor()
