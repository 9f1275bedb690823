"""The input and result of one code execution."""

from __future__ import annotations

import dataclasses

__all__ = ["CodeExecutionInput", "CodeExecutionResult", "File"]


@dataclasses.dataclass(frozen=True)
class File:
    """A file given to or produced by the code (content as text or bytes)."""

    name: str
    content: str | bytes
    mime_type: str = "text/plain"


@dataclasses.dataclass
class CodeExecutionInput:
    """Code to run, with the files it may read."""

    code: str
    input_files: list[File] = dataclasses.field(default_factory=list)
    execution_id: str | None = None


@dataclasses.dataclass
class CodeExecutionResult:
    """What the code printed, and its exit code when it ran as a process."""

    stdout: str = ""
    stderr: str = ""
    output_files: list[File] = dataclasses.field(default_factory=list)
    exit_code: int | None = None
