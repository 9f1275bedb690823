"""``google.adk.flows.llm_flows.single_flow`` → here: the processors of one agent's model call.

:class:`SingleFlow` lists, in google-adk's order, the faces of this package over the steps
an LLM agent's loop takes (``adk_runtime.agents._llm_flow``): running its
``_preprocess_async`` on an empty ``LlmRequest`` builds the request the agent's model is
sent (transfer aside: see :class:`~adk_runtime.flows.llm_flows.auto_flow.AutoFlow`).
"""

from __future__ import annotations

from adk_runtime.flows.llm_flows import (
    _auth_preprocessor,
    _code_execution,
    _nl_planning,
    _output_schema_processor,
    basic,
    compaction,
    contents,
    context_cache_processor,
    instructions,
    interactions_processor,
    request_confirmation,
)
from adk_runtime.flows.llm_flows._base_llm_processor import (
    BaseLlmRequestProcessor,
    BaseLlmResponseProcessor,
)
from adk_runtime.flows.llm_flows.base_llm_flow import BaseLlmFlow

__all__ = ["SingleFlow"]


def _request_processors() -> list[BaseLlmRequestProcessor]:
    return [
        basic.request_processor,
        _auth_preprocessor.request_processor,
        request_confirmation.request_processor,
        instructions.request_processor,
        compaction.request_processor,  # before the contents, which show the summary
        interactions_processor.request_processor,  # before the contents: a chain sends less
        contents.request_processor,  # places the instruction contents left on the request
        context_cache_processor.request_processor,
        _nl_planning.request_processor,  # after the contents, whose thoughts it unmarks
        _code_execution.request_processor,
        _output_schema_processor.request_processor,
    ]


def _response_processors() -> list[BaseLlmResponseProcessor]:
    return [_nl_planning.response_processor, _code_execution.response_processor]


class SingleFlow(BaseLlmFlow):
    """The request and response processors of one LLM agent and its tools."""

    def __init__(self) -> None:
        """A flow with the standard processors."""
        super().__init__()
        self.request_processors += _request_processors()
        self.response_processors += _response_processors()
