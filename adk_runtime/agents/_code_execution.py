"""Run the code blocks of model responses with an agent's (non built-in) code executor."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from google.genai import types

from adk_runtime.agents.invocation_context import InvocationContext
from adk_runtime.events import Event

if TYPE_CHECKING:
    from adk_runtime.agents.llm_agent import LlmAgent
    from adk_runtime.code_executors.base_code_executor import BaseCodeExecutor
    from adk_runtime.code_executors.code_execution_utils import (
        CodeExecutionInput,
        CodeExecutionResult,
    )

__all__ = ["CodeRun", "run_executor"]

logger = logging.getLogger(__name__)


class CodeRun:
    """The code block of one complete model response, and running it.

    ``extract`` turns the first fenced code block of the response's text into an
    ``executable_code`` part (the text before it stays; the rest is dropped, as the model
    will see the result and go on). ``execute`` runs it and returns the event with the
    ``code_execution_result`` part: not a final response, so the agent calls the model again.
    Failed runs in a row beyond ``error_retry_attempts`` are not run again.
    """

    def __init__(self, agent: LlmAgent, ctx: InvocationContext) -> None:
        """Prepare for ``agent``'s executor (nothing happens without one)."""
        from adk_runtime.code_executors.built_in_code_executor import BuiltInCodeExecutor

        executor = agent.code_executor
        self.executor: BaseCodeExecutor | None = (
            None if isinstance(executor, BuiltInCodeExecutor) else executor
        )
        self.agent = agent
        self.ctx = ctx
        self.code: str | None = None

    def extract(self, event: Event) -> None:
        """Find and mark the code block of ``event`` (a complete model response)."""
        self.code = None
        if self.executor is None or event.content is None or event.get_function_calls():
            return
        if self._failures() > self.executor.error_retry_attempts:
            return
        parts = list(event.content.parts or [])
        for index, part in enumerate(parts):
            if not part.text or part.thought:
                continue
            found = _find_block(part.text, self.executor.code_block_delimiters)
            if found is None:
                continue
            before, code = found
            head = [types.Part(text=before)] if before.strip() else []
            code_part = types.Part(
                executable_code=types.ExecutableCode(code=code, language=types.Language.PYTHON)
            )
            event.content = event.content.model_copy(
                update={"parts": [*parts[:index], *head, code_part]}
            )
            self.code = code
            return

    async def execute(self) -> Event | None:
        """Run the extracted code; the event carrying its result (None when there was none)."""
        from adk_runtime.code_executors.code_execution_utils import CodeExecutionInput

        if self.code is None or self.executor is None:
            return None
        result = await run_executor(self.executor, self.ctx, CodeExecutionInput(code=self.code))
        failed = bool(result.stderr) or bool(result.exit_code)
        output = result.stdout + (f"\n{result.stderr}" if result.stderr else "")
        outcome = types.Outcome.OUTCOME_FAILED if failed else types.Outcome.OUTCOME_OK
        part = types.Part(
            code_execution_result=types.CodeExecutionResult(outcome=outcome, output=output)
        )
        return Event(
            invocation_id=self.ctx.invocation_id,
            author=self.agent.name,
            branch=self.ctx.branch,
            content=types.Content(role="model", parts=[part]),
        )

    def _failures(self) -> int:
        """Failed runs in a row at the end of this invocation's events."""
        count = 0
        for event in reversed(self.ctx.session.events):
            if event.invocation_id != self.ctx.invocation_id or event.content is None:
                break
            results = [
                p.code_execution_result
                for p in event.content.parts or []
                if p.code_execution_result is not None
            ]
            if not results:
                continue
            if results[-1].outcome != types.Outcome.OUTCOME_FAILED:
                break
            count += 1
        return count


async def run_executor(
    executor: BaseCodeExecutor, ctx: InvocationContext, code_input: CodeExecutionInput
) -> CodeExecutionResult:
    """Run ``code_input`` with ``executor``, never blocking the event loop.

    An executor written for google-adk implements ``execute_code`` as a plain (blocking)
    method: it runs in a worker thread, with the caller's context variables.
    """
    execute: Callable[[InvocationContext, CodeExecutionInput], Any] = executor.execute_code
    if inspect.iscoroutinefunction(execute):
        result = await execute(ctx, code_input)
    else:
        result = await asyncio.to_thread(execute, ctx, code_input)
        if inspect.isawaitable(result):  # a plain method that returns a coroutine
            result = await result
    logger.debug("Ran %d characters of model-written code.", len(code_input.code))
    return cast("CodeExecutionResult", result)


def _find_block(text: str, delimiters: list[tuple[str, str]]) -> tuple[str, str] | None:
    """``(text before, code)`` of the earliest fenced block, or None."""
    best: tuple[int, str, str] | None = None
    for start, end in delimiters:
        at = text.find(start)
        if at < 0:
            continue
        close = text.find(end, at + len(start))
        if close < 0:
            continue
        if best is None or at < best[0]:
            best = (at, text[:at], text[at + len(start) : close])
    return None if best is None else (best[1], best[2])
