"""UnsafeLocalCodeExecutor: run the model's Python code on this machine, only when asked to."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
import tempfile
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from adk_runtime.code_executors.base_code_executor import BaseCodeExecutor
from adk_runtime.code_executors.code_execution_utils import CodeExecutionInput, CodeExecutionResult
from adk_runtime.environment._process import started
from adk_runtime.errors import ConfigurationError

if TYPE_CHECKING:
    from adk_runtime.core.invocation_context import InvocationContext

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
        super().model_post_init(__context)
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
        """Run the code in a child process.

        The result holds what the code wrote on stdout and stderr and its exit status (a
        run succeeded when that is 0, warnings on stderr or not). A run over the timeout,
        or one whose turn is cancelled, is killed together with every process it started.
        """
        timeout = self.timeout_seconds or DEFAULT_TIMEOUT_SECONDS
        with tempfile.TemporaryDirectory(prefix="adk-code-") as workdir:
            await asyncio.to_thread(_write_inputs, Path(workdir), code_execution_input)
            # The program is read from stdin, not passed as an argument: any size (an
            # argument is capped by the OS) and any bytes (a NUL is Python's SyntaxError
            # rather than an exception here). The code then sees an empty stdin. UTF-8 mode
            # makes its output UTF-8 whatever the machine's locale; its own session lets a
            # kill reach every process it started.
            process = await started(
                asyncio.create_subprocess_exec(
                    sys.executable,
                    "-I",
                    "-X",
                    "utf8",
                    "-",
                    cwd=workdir,
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE,
                    start_new_session=True,
                )
            )
            program = code_execution_input.code.encode("utf-8", "surrogatepass")
            try:
                stdout, stderr = await asyncio.wait_for(process.communicate(program), timeout)
            except asyncio.TimeoutError:
                await _kill(process)
                return CodeExecutionResult(
                    stderr=f"The code did not finish within {timeout} s and was stopped.",
                    exit_code=process.returncode,
                )
            except BaseException:
                await _kill(process)
                raise
        return CodeExecutionResult(
            stdout=stdout.decode("utf-8", "replace"),
            stderr=stderr.decode("utf-8", "replace"),
            exit_code=process.returncode,
        )


async def _kill(process: asyncio.subprocess.Process) -> None:
    """Kill the run's process group (the code and whatever it started), then reap it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if hasattr(os, "killpg"):
            os.killpg(process.pid, signal.SIGKILL)
        else:  # pragma: no cover - Windows has no process groups
            process.kill()
    await process.wait()


def _write_inputs(workdir: Path, code_input: CodeExecutionInput) -> None:
    for file in code_input.input_files:
        target = workdir / Path(file.name).name
        target.write_bytes(file.as_bytes())
