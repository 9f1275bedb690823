"""``google.adk.flows.llm_flows._code_execution`` → here: the code executor's steps.

The same pieces the LLM flow uses: on the request,
``adk_runtime.agents._step_hooks.apply_code_executor`` (a ``BuiltInCodeExecutor`` declares
Gemini's code execution tool); on a complete response,
``adk_runtime.agents._code_execution.CodeRun`` (another executor runs the response's first
fenced code block; a blocking ``execute_code`` runs in a worker thread). The run gets the
input files and, for a stateful executor, the execution id kept in the session state
(``CodeExecutorContext``); the files it writes are saved as artifacts.

google-adk's data-file optimisation (``optimize_data_file``: CSV parts of the request
replaced by names and explored with pandas first) has no counterpart
(``optimize_data_file=True`` is refused), and the run history google-adk appends to the
state (``_code_execution_results``) is not written: the events hold every run.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING

from adk_runtime.agents import _step_hooks
from adk_runtime.agents._code_execution import CodeRun
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


class _CodeExecutionRequestProcessor(_Filler):
    """Declares Gemini's code execution tool for a ``BuiltInCodeExecutor``."""

    name = "code_execution"

    async def _fill(self, invocation_context: InvocationContext, llm_request: LlmRequest) -> None:
        _step_hooks.apply_code_executor(llm_agent_of(invocation_context), llm_request)


class _CodeExecutionResponseProcessor(BaseLlmResponseProcessor):
    """Runs the first code block of a complete response with the agent's code executor.

    When the response holds one, yields the response's event (its text cut after the block,
    the block as an ``executable_code`` part), then the event with the run's
    ``code_execution_result``; the response's content is then cleared, as it has become
    that first event.
    """

    name = "code_execution"

    async def run_async(
        self, invocation_context: InvocationContext, llm_response: LlmResponse
    ) -> AsyncGenerator[Event, None]:
        """Run ``llm_response``'s code block, if any; yield the code and result events."""
        if llm_response.partial or llm_response.content is None:
            return
        agent = llm_agent_of(invocation_context)
        run = CodeRun(agent, invocation_context)
        event = Event(
            invocation_id=invocation_context.invocation_id,
            author=agent.name,
            branch=invocation_context.branch,
            content=llm_response.content,
        )
        run.extract(event)
        if run.code is None:
            return
        yield event
        result = await run.execute()
        if result is not None:
            yield result
        llm_response.content = None


request_processor = _CodeExecutionRequestProcessor()
response_processor = _CodeExecutionResponseProcessor()
