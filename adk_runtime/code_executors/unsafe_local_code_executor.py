"""UnsafeLocalCodeExecutor: run the model's Python code on this machine, only when asked to."""

from __future__ import annotations

import asyncio
import logging
import sys
import tempfile
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from adk_runtime.code_executors.base_code_executor import BaseCodeExecutor
from adk_runtime.code_executors.code_execution_utils import CodeExecutionInput, CodeExecutionResult
from adk_runtime.errors import ConfigurationError

if TYPE_CHECKING:
    from adk_runtime.agents.invocation_context import InvocationContext

__all__ = ["DEFAULT_TIMEOUT_SECONDS", "UnsafeLocalCodeExecutor"]

logger = logging.getLogger(__name__)

DEFAULT_TIMEOUT_SECONDS = 30
_WARNING = (
    "UnsafeLocalCodeExecutor runs code written by a model as a Python process on this machine, "
    "with this process's user, files and network. Use it only with models and inputs you "
    "trust, or inside a sandbox (a container or VM)."
)


class UnsafeLocalCodeExecutor(BaseCodeExecutor):
    """Run each code block in a fresh ``python -I`` process in an empty temporary directory.

    It is not a sandbox: the code can do whatever this process's user can. Building one
    therefore needs ``allow_unsafe_local_execution=True`` and emits a ``UserWarning``.
    ``timeout_seconds`` (default 30) kills a run that takes longer; the input files are
    written into the run's directory first.

    Attributes:
        allow_unsafe_local_execution: The explicit opt-in; False raises ``ConfigurationError``.
    """

    allow_unsafe_local_execution: bool = False

    def model_post_init(self, __context: Any) -> None:
        """Refuse without the opt-in; warn with it."""
        if not self.allow_unsafe_local_execution:
            raise ConfigurationError(
                "UnsafeLocalCodeExecutor runs model-written code on this machine; pass "
                "allow_unsafe_local_execution=True to accept that (or use BuiltInCodeExecutor, "
                "which runs it on the model's side)."
            )
        if self.stateful:
            raise ConfigurationError("UnsafeLocalCodeExecutor cannot be stateful.")
        warnings.warn(_WARNING, UserWarning, stacklevel=2)
        logger.warning("%s", _WARNING)

    async def execute_code(
        self, invocation_context: InvocationContext, code_execution_input: CodeExecutionInput
    ) -> CodeExecutionResult:
        """Run the code in a child process; a run over the timeout is killed and reported."""
        timeout = self.timeout_seconds or DEFAULT_TIMEOUT_SECONDS
        with tempfile.TemporaryDirectory(prefix="adk-code-") as workdir:
            await asyncio.to_thread(_write_inputs, Path(workdir), code_execution_input)
            # The program is read from stdin, not passed as an argument: any size (an
            # argument is capped by the OS) and any bytes (a NUL is Python's SyntaxError
            # rather than an exception here). The code then sees an empty stdin.
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-I",
                "-",
                cwd=workdir,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
            program = code_execution_input.code.encode("utf-8", "surrogatepass")
            try:
                stdout, stderr = await asyncio.wait_for(process.communicate(program), timeout)
            except asyncio.TimeoutError:
                process.kill()
                await process.wait()
                return CodeExecutionResult(
                    stderr=f"The code did not finish within {timeout} s and was stopped.",
                    exit_code=process.returncode,
                )
        return CodeExecutionResult(
            stdout=stdout.decode("utf-8", "replace"),
            stderr=stderr.decode("utf-8", "replace"),
            exit_code=process.returncode,
        )


def _write_inputs(workdir: Path, code_input: CodeExecutionInput) -> None:
    for file in code_input.input_files:
        target = workdir / Path(file.name).name
        if isinstance(file.content, bytes):
            target.write_bytes(file.content)
        else:
            target.write_text(file.content, encoding="utf-8")
