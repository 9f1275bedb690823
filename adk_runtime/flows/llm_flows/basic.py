"""``google.adk.flows.llm_flows.basic`` → here: the model and settings step of a request.

What the LLM flow does first (``adk_runtime.agents._llm_flow``): the agent's model and a copy
of its ``generate_content_config``; then the invocation's ``RunConfig`` labels and HTTP
options over the agent's (HTTP options already on the request count as the invocation's
too: headers are added, timeout, retry options and extra body replaced); then the
``output_schema`` (``adk_runtime.agents._structured_output.prepare_request``: JSON output
without tools, the ``set_model_response`` tool with them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from adk_runtime.agents import _llm_flow, _structured_output
from adk_runtime.flows.llm_flows._base_llm_processor import _Filler, llm_agent_of

if TYPE_CHECKING:
    from adk_runtime.core.invocation_context import InvocationContext
    from adk_runtime.models.llm_request import LlmRequest

__all__ = ["request_processor"]


class _BasicLlmRequestProcessor(_Filler):
    """Sets the request's model, generation settings and output schema."""

    name = "basic"

    async def _fill(self, invocation_context: InvocationContext, llm_request: LlmRequest) -> None:
        agent = llm_agent_of(invocation_context)
        carried = llm_request.config.http_options
        _llm_flow.apply_agent_config(agent, llm_request)
        if carried is not None:
            llm_request.config.http_options = _llm_flow.merged_http_options(
                llm_request.config.http_options, carried
            )
        _llm_flow.apply_run_config(llm_request, invocation_context)
        _structured_output.prepare_request(agent, llm_request)


request_processor = _BasicLlmRequestProcessor()
