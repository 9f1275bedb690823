"""BaseEnvironment: the contract of a place where an agent runs commands and edits files."""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from pathlib import Path

__all__ = ["BaseEnvironment", "ExecutionResult"]


@dataclasses.dataclass
class ExecutionResult:
    """What one command did.

    Attributes:
        exit_code: The command's exit status (0 when it succeeded).
        stdout: Its standard output, decoded as UTF-8 (undecodable bytes replaced).
        stderr: Its standard error, decoded the same way.
        timed_out: The command ran out of time and was killed.
    """

    exit_code: int = 0
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False


class BaseEnvironment(ABC):
    """A working directory with a shell: commands run there, files are read and written there.

    Use: construct, ``await initialize()`` before the first call, then :meth:`execute`,
    :meth:`read_file`, :meth:`write_file`; ``await close()`` at the end. Implementations make
    ``initialize`` and ``close`` safe to call more than once.
    """

    _is_initialized: bool = False

    @property
    def is_initialized(self) -> bool:
        """Whether :meth:`initialize` ran (and :meth:`close` did not since)."""
        return self._is_initialized

    @is_initialized.setter
    def is_initialized(self, value: bool) -> None:
        self._is_initialized = value

    async def initialize(self) -> None:  # noqa: B027 - optional, as in google-adk
        """Prepare the environment (e.g. create the working directory); by default nothing."""

    async def close(self) -> None:  # noqa: B027 - optional, as in google-adk
        """Release what the environment holds; by default nothing."""

    @property
    @abstractmethod
    def working_dir(self) -> Path:
        """The absolute path of the working directory."""

    @abstractmethod
    async def execute(self, command: str, *, timeout: float | None = None) -> ExecutionResult:
        """Run the shell command ``command`` in the working directory.

        Args:
            command: A shell command line.
            timeout: Seconds before the command is killed; None waits as long as it runs.
        """

    @abstractmethod
    async def read_file(self, path: str | Path) -> bytes:
        """The bytes of the file at ``path`` (absolute, or relative to the working directory).

        Raises:
            FileNotFoundError: There is no such file.
        """

    @abstractmethod
    async def write_file(self, path: str | Path, content: str | bytes) -> None:
        """Create or replace the file at ``path`` (missing parent directories are created)."""
