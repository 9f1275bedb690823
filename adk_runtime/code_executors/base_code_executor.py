"""BaseCodeExecutor: how an LLM agent runs the code its model writes."""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from adk_runtime.code_executors.code_execution_utils import CodeExecutionInput, CodeExecutionResult
from adk_runtime.errors import ConfigurationError

if TYPE_CHECKING:
    from adk_runtime.core.invocation_context import InvocationContext

__all__ = ["BaseCodeExecutor"]


class BaseCodeExecutor(BaseModel, abc.ABC):
    """Runs code blocks found in model responses (``LlmAgent(code_executor=...)``).

    Attributes:
        optimize_data_file: google-adk's CSV pre-processing of the request's data files; not
            supported (True raises ``ConfigurationError``). Store files for the code with
            ``CodeExecutorContext.add_input_files`` instead.
        stateful: Whether variables survive from one execution to the next (not supported by
            the executors here: each run starts afresh). For a stateful executor of one's
            own, each run's ``execution_id`` is the session's (or the one set with
            ``CodeExecutorContext.set_execution_id``).
        error_retry_attempts: How many failed executions in a row the model may retry.
        code_block_delimiters: The fences a code block starts and ends with in the model's
            text; the first found is run.
        execution_result_delimiters: The fences the result is written back to the model in.
        timeout_seconds: The longest one execution may run (None: the executor's default).
    """

    model_config = ConfigDict(extra="forbid")

    optimize_data_file: bool = False
    stateful: bool = False
    error_retry_attempts: int = 2
    code_block_delimiters: list[tuple[str, str]] = [
        ("```tool_code\n", "\n```"),
        ("```python\n", "\n```"),
    ]
    execution_result_delimiters: tuple[str, str] = ("```tool_output\n", "\n```")
    timeout_seconds: int | None = None

    def model_post_init(self, __context: Any) -> None:
        """Refuse ``optimize_data_file=True``, which nothing here implements."""
        if self.optimize_data_file:
            raise ConfigurationError(
                f"{type(self).__name__}(optimize_data_file=True) is not supported: CSV parts "
                "of the request are not pre-processed. Give the code its files with "
                "CodeExecutorContext.add_input_files."
            )

    @abc.abstractmethod
    async def execute_code(
        self, invocation_context: InvocationContext, code_execution_input: CodeExecutionInput
    ) -> CodeExecutionResult:
        """Run the code and return what it printed.

        An executor written for google-adk may override this with a plain (blocking) method:
        the flow then runs it in a worker thread.
        """
