"""Run the code blocks of model responses with an agent's (non built-in) code executor."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from google.genai import types

from adk_runtime.code_executors.code_execution_utils import find_code_block
from adk_runtime.core.invocation_context import InvocationContext
from adk_runtime.errors import ServiceNotConfiguredError
from adk_runtime.events import Event, EventActions
from adk_runtime.sessions.state import State

if TYPE_CHECKING:
    from adk_runtime.agents.llm_agent import LlmAgent
    from adk_runtime.code_executors.base_code_executor import BaseCodeExecutor
    from adk_runtime.code_executors.code_execution_utils import (
        CodeExecutionInput,
        CodeExecutionResult,
        File,
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
            found = find_code_block(part.text, self.executor.code_block_delimiters)
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
        """Run the extracted code; the event carrying its result (None when there was none).

        The run gets the input files stored in the state (``CodeExecutorContext``) and, for
        a stateful executor, the execution id stored there (the session id the first time,
        then stored by the result event). Files the code produced are saved as artifacts,
        recorded in the result event's ``artifact_delta``.
        """
        from adk_runtime.code_executors.code_execution_utils import (
            CodeExecutionInput,
            CodeExecutionUtils,
        )
        from adk_runtime.code_executors.code_executor_context import CodeExecutorContext

        if self.code is None or self.executor is None:
            return None
        delta: dict[str, Any] = {}
        context = CodeExecutorContext(State(dict(self.ctx.session.state), delta))
        execution_id: str | None = None
        if self.executor.stateful:
            execution_id = context.get_execution_id()
            if not execution_id:
                execution_id = self.ctx.session.id
                context.set_execution_id(execution_id)
        code_input = CodeExecutionInput(
            code=self.code, input_files=context.get_input_files(), execution_id=execution_id
        )
        result = await run_executor(self.executor, self.ctx, code_input)
        actions = EventActions(state_delta=delta)
        for file in result.output_files:
            actions.artifact_delta[file.name] = await self._save(file)
        part = CodeExecutionUtils.build_code_execution_result_part(result)
        return Event(
            invocation_id=self.ctx.invocation_id,
            author=self.agent.name,
            branch=self.ctx.branch,
            content=types.Content(role="model", parts=[part]),
            actions=actions,
        )

    async def _save(self, file: File) -> int:
        """Save a file the code produced as an artifact of the session; its version."""
        service = self.ctx.artifact_service
        if service is None:
            raise ServiceNotConfiguredError(
                f"The code wrote {file.name!r}, but there is no artifact service to save it "
                "in. Pass artifact_service to the Runner."
            )
        data = file.as_bytes()
        return await service.save_artifact(
            app_name=self.ctx.app_name,
            user_id=self.ctx.user_id,
            session_id=self.ctx.session.id,
            filename=file.name,
            artifact=types.Part.from_bytes(data=data, mime_type=file.mime_type),
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
