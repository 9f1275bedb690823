"""LocalEnvironment: commands run as local subprocesses in a directory of this machine."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import tempfile
from pathlib import Path

from adk_runtime.environment._base_environment import BaseEnvironment, ExecutionResult
from adk_runtime.environment._process import collect, started

__all__ = ["LocalEnvironment"]

logger = logging.getLogger(__name__)

DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024
"""How much of each of a command's output streams is kept in memory (the rest is dropped)."""


class LocalEnvironment(BaseEnvironment):
    """A directory of this machine where commands run as local ``asyncio`` subprocesses.

    Commands run with this process's rights and environment variables: give an agent one only
    where that is acceptable (a container, a throwaway machine). Files are read and written only
    inside the working directory (a path that leads out of it is refused); commands are not
    confined.

    Without ``working_dir``, a temporary directory is made by :meth:`initialize` and removed
    by :meth:`close`.
    """

    def __init__(
        self,
        *,
        working_dir: Path | None = None,
        env_vars: dict[str, str] | None = None,
        max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
    ) -> None:
        """Run commands in ``working_dir``.

        Args:
            working_dir: The directory (created if missing); None makes a temporary one.
            env_vars: Variables added to the subprocesses' environment.
            max_output_bytes: How much of each output stream of a command is kept.
        """
        self._working_dir = working_dir
        self._env_vars = dict(env_vars or {})
        self._max_output_bytes = max_output_bytes
        self._auto_created = False
        self._is_initialized = False

    @property
    def working_dir(self) -> Path:
        """The working directory.

        Raises:
            RuntimeError: No directory was given and :meth:`initialize` has not run yet.
        """
        if self._working_dir is None:
            raise RuntimeError("The working directory is not set yet; call initialize() first.")
        return self._working_dir

    async def initialize(self) -> None:
        """Create the working directory (a temporary one when none was given)."""
        if self._working_dir is None:
            made = await asyncio.to_thread(tempfile.mkdtemp, prefix="adk_workspace_")
            self._working_dir, self._auto_created = Path(made), True
        else:
            await asyncio.to_thread(os.makedirs, self._working_dir, exist_ok=True)
        self._is_initialized = True

    async def close(self) -> None:
        """Remove the working directory if :meth:`initialize` made it."""
        if self._auto_created and self._working_dir is not None:
            await asyncio.to_thread(shutil.rmtree, self._working_dir, ignore_errors=True)
            self._working_dir, self._auto_created = None, False
        self._is_initialized = False

    async def execute(self, command: str, *, timeout: float | None = None) -> ExecutionResult:
        """Run ``command`` with the shell in the working directory.

        The command leads a process group of its own: on a timeout, or when the caller is
        cancelled, the group is killed, and so is whatever the command left running.
        """
        working_dir = self.working_dir
        process = await started(
            asyncio.create_subprocess_shell(
                command,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=working_dir,
                env={**os.environ, **self._env_vars},
                start_new_session=True,
            )
        )
        output = await collect(process, timeout=timeout, limit=self._max_output_bytes)
        if output.timed_out:
            logger.info("A command in a local environment timed out after %ss.", timeout)
        return ExecutionResult(
            exit_code=output.returncode or 0,
            stdout=output.stdout,
            stderr=output.stderr,
            timed_out=output.timed_out,
        )

    async def read_file(self, path: str | Path) -> bytes:
        """The bytes of the file at ``path``.

        Raises:
            ValueError: ``path`` leads out of the working directory.
            FileNotFoundError: There is no such file.
        """
        resolved = await asyncio.to_thread(self._inside, path)
        return await asyncio.to_thread(resolved.read_bytes)

    async def write_file(self, path: str | Path, content: str | bytes) -> None:
        """Create or replace the file at ``path``; text is written as UTF-8, unchanged.

        Raises:
            ValueError: ``path`` leads out of the working directory.
        """
        resolved = await asyncio.to_thread(self._inside, path)
        await asyncio.to_thread(_write, resolved, content)

    def _inside(self, path: str | Path) -> Path:
        """``path`` resolved (symbolic links followed), if it stays in the working directory."""
        root = self.working_dir.resolve()
        candidate = Path(path)
        resolved = (candidate if candidate.is_absolute() else root / candidate).resolve()
        if not resolved.is_relative_to(root):
            raise ValueError(f"Path escapes working directory: {path}")
        return resolved


def _write(path: Path, content: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = content.encode("utf-8") if isinstance(content, str) else content
    path.write_bytes(data)
