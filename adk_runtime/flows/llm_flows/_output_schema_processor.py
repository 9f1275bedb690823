"""``google.adk.flows.llm_flows._output_schema_processor`` → here: the answer tool's step.

An agent with an ``output_schema`` and tools whose model cannot pair a response schema
with tools (``capabilities.output_schema_and_tools``) is offered ``set_model_response``,
whose arguments are the structured answer, and told so in the system instruction
(``adk_runtime.agents._structured_output.offer_answer_tool``, once per request). An agent
without tools, or whose model pairs them, gets the schema as the request's
``response_schema`` in the basic step (:mod:`.basic`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from adk_runtime.agents import _structured_output
from adk_runtime.flows.llm_flows._base_llm_processor import _Filler, llm_agent_of

if TYPE_CHECKING:
    from adk_runtime.core.invocation_context import InvocationContext
    from adk_runtime.models.llm_request import LlmRequest

__all__ = ["request_processor"]


class _OutputSchemaRequestProcessor(_Filler):
    """Offers ``set_model_response`` to an agent with an ``output_schema`` and tools."""

    name = "output_schema"

    async def _fill(self, invocation_context: InvocationContext, llm_request: LlmRequest) -> None:
        agent = llm_agent_of(invocation_context)
        _structured_output.offer_answer_tool(agent, llm_request)


request_processor = _OutputSchemaRequestProcessor()
