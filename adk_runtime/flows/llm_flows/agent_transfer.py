"""``google.adk.flows.llm_flows.agent_transfer`` → here: the transfer step of a request.

An LLM agent may hand the conversation to its sub-agents, its parent and its peers (unless
``disallow_transfer_to_parent`` / ``disallow_transfer_to_peers``). The flow offers it the
``transfer_to_agent`` tool for that (``LlmAgent.canonical_tools``), which lists the agents it
may choose in the system instruction; this step does the same for a request built by hand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from adk_runtime.core.readonly_context import ReadonlyContext
from adk_runtime.core.tool_context import ToolContext
from adk_runtime.flows.llm_flows._base_llm_processor import _Filler, llm_agent_of
from adk_runtime.tools.transfer_to_agent_tool import NAME as TRANSFER_TOOL_NAME

if TYPE_CHECKING:
    from adk_runtime.core.base_agent import BaseAgent
    from adk_runtime.core.invocation_context import InvocationContext
    from adk_runtime.models.llm_request import LlmRequest

__all__ = ["request_processor"]


def _get_transfer_targets(agent: BaseAgent) -> list[BaseAgent]:
    """The agents ``agent`` may transfer to: none unless it is an ``LlmAgent``.

    Its sub-agents, then its parent and its parent's other sub-agents when the parent is an
    ``LlmAgent`` and the agent does not disallow them.
    """
    from adk_runtime.agents.llm_agent import LlmAgent

    if not isinstance(agent, LlmAgent):
        return []
    return agent._transfer_targets()


class _AgentTransferLlmRequestProcessor(_Filler):
    """Offers ``transfer_to_agent`` (with the list of targets) when the agent may transfer."""

    name = "agent_transfer"

    async def _fill(self, invocation_context: InvocationContext, llm_request: LlmRequest) -> None:
        agent = llm_agent_of(invocation_context)
        if not _get_transfer_targets(agent):
            return
        tools = await agent.canonical_tools(ReadonlyContext(invocation_context))
        for tool in tools:
            if tool.name == TRANSFER_TOOL_NAME:
                await tool.process_llm_request(
                    tool_context=ToolContext(invocation_context), llm_request=llm_request
                )
                return


request_processor = _AgentTransferLlmRequestProcessor()
