"""The input and result of one code execution, and helpers for code executors."""

from __future__ import annotations

import base64
import binascii
import dataclasses

from google.genai import types

__all__ = ["CodeExecutionInput", "CodeExecutionResult", "CodeExecutionUtils", "File"]


@dataclasses.dataclass(frozen=True)
class File:
    """A file given to or produced by the code.

    Attributes:
        name: The file name with its extension (``data.csv``).
        content: The bytes, or a string: their base64 (google-adk's form), or else, when
            it is not valid base64, the text itself (see :meth:`as_bytes`).
        mime_type: The file's type (``text/csv``, ``image/png``...).
    """

    name: str
    content: str | bytes
    mime_type: str = "text/plain"

    def as_bytes(self) -> bytes:
        """The file's bytes: ``content`` decoded from base64 if it is a string in it.

        A string that is not valid base64 (spaces, commas, line breaks...) is the text
        itself, encoded as UTF-8.
        """
        if isinstance(self.content, bytes):
            return self.content
        try:
            return base64.b64decode(self.content, validate=True)
        except (binascii.Error, ValueError):
            return self.content.encode("utf-8", "surrogatepass")


@dataclasses.dataclass
class CodeExecutionInput:
    """Code to run, with the files it may read.

    Attributes:
        code: The program.
        input_files: Files to place where the code can read them.
        execution_id: For a stateful executor, the id of the execution environment to reuse
            (the flow passes the session's; None for a stateless executor).
    """

    code: str
    input_files: list[File] = dataclasses.field(default_factory=list)
    execution_id: str | None = None


@dataclasses.dataclass
class CodeExecutionResult:
    """What the code printed and produced.

    Attributes:
        stdout: Its standard output.
        stderr: Its standard error; non-empty means the run failed.
        output_files: Files it produced (the flow saves them as artifacts).
        exit_code: The process's exit status, when the code ran as a process.
    """

    stdout: str = ""
    stderr: str = ""
    output_files: list[File] = dataclasses.field(default_factory=list)
    exit_code: int | None = None

    @property
    def failed(self) -> bool:
        """Whether the run failed: a non-zero exit status, or, with none, output on stderr.

        A process that exits with status 0 succeeded whatever it wrote on stderr (warnings,
        progress); an executor that reports no exit status fails when stderr is not empty,
        as google-adk judges a run.
        """
        if self.exit_code is not None:
            return self.exit_code != 0
        return bool(self.stderr)


def find_code_block(text: str, delimiters: list[tuple[str, str]]) -> tuple[str, str] | None:
    """``(text before, code)`` of the earliest complete fenced block in ``text``, or None.

    Plain substring search (linear time whatever the text): the earliest opening fence with
    a closing fence after it wins, whichever delimiter pair it belongs to.
    """
    best: tuple[int, str, str] | None = None
    for start, end in delimiters:
        at = text.find(start)
        if at < 0 or (best is not None and at >= best[0]):
            continue
        close = text.find(end, at + len(start))
        if close >= 0:
            best = (at, text[:at], text[at + len(start) : close])
    return None if best is None else (best[1], best[2])


class CodeExecutionUtils:
    """Static helpers for writing a code executor or a flow step around one."""

    @staticmethod
    def get_encoded_file_content(data: bytes) -> bytes:
        """``data`` as base64: returned as it is when it already is valid base64."""
        try:
            if base64.b64encode(base64.b64decode(data, validate=True)) == data:
                return data
        except (binascii.Error, ValueError):
            pass
        return base64.b64encode(data)

    @staticmethod
    def extract_code_and_truncate_content(
        content: types.Content | None, code_block_delimiters: list[tuple[str, str]]
    ) -> str | None:
        """The code to run in ``content`` (a model response), cutting ``content`` after it.

        An ``executable_code`` part not yet followed by its ``code_execution_result`` is the
        code, and the parts after it are dropped. Otherwise the text of the non-thought text
        parts (joined by newlines) is searched for the earliest fenced block: ``content``
        then becomes the text before the block (when not empty) and the block as an
        ``executable_code`` part.

        Args:
            content: The content, changed in place when code is found.
            code_block_delimiters: The ``(opening, closing)`` fences a block may use.

        Returns:
            The code, or None (``content`` unchanged) when there is none.
        """
        if content is None or not content.parts:
            return None
        parts = content.parts
        for index, part in enumerate(parts):
            if part.executable_code is None:
                continue
            answered = index + 1 < len(parts) and parts[index + 1].code_execution_result
            if not answered:
                content.parts = parts[: index + 1]
                return part.executable_code.code
        text_parts = [p for p in parts if p.text and not p.thought]
        if not text_parts:
            return None
        found = find_code_block("\n".join(p.text or "" for p in text_parts), code_block_delimiters)
        if found is None or not found[1]:
            return None
        before, code = found
        head = [text_parts[0].model_copy(update={"text": before})] if before else []
        content.parts = [*head, CodeExecutionUtils.build_executable_code_part(code)]
        return code

    @staticmethod
    def build_executable_code_part(code: str) -> types.Part:
        """An ``executable_code`` part holding Python ``code``."""
        return types.Part(
            executable_code=types.ExecutableCode(code=code, language=types.Language.PYTHON)
        )

    @staticmethod
    def build_code_execution_result_part(
        code_execution_result: CodeExecutionResult,
    ) -> types.Part:
        """The ``code_execution_result`` part the model reads for a run.

        A failed run (:attr:`CodeExecutionResult.failed`) is ``OUTCOME_FAILED`` with what it
        printed on stdout and stderr; a successful one is ``OUTCOME_OK`` with its stdout, and
        the names of the files it produced (saved as artifacts by the flow).
        """
        result = code_execution_result
        if result.failed:
            output = "\n".join(text for text in (result.stdout, result.stderr) if text)
            if not output:
                output = f"The code exited with status {result.exit_code}."
            return types.Part(
                code_execution_result=types.CodeExecutionResult(
                    outcome=types.Outcome.OUTCOME_FAILED, output=output
                )
            )
        output = result.stdout
        if result.output_files:
            names = ", ".join(f"`{file.name}`" for file in result.output_files)
            output += ("\n" if output else "") + f"Files saved as artifacts: {names}"
        return types.Part(
            code_execution_result=types.CodeExecutionResult(
                outcome=types.Outcome.OUTCOME_OK, output=output
            )
        )

    @staticmethod
    def convert_code_execution_parts(
        content: types.Content,
        code_block_delimiter: tuple[str, str],
        execution_result_delimiters: tuple[str, str],
    ) -> None:
        """Turn a content's trailing code-execution part into fenced text, in place.

        For a model that reads only text: a trailing ``executable_code`` part becomes the
        code inside ``code_block_delimiter``; a content that is only a
        ``code_execution_result`` part becomes its output inside
        ``execution_result_delimiters``, in the ``user`` role (the model reads it as input).
        """
        if not content.parts:
            return
        last = content.parts[-1]
        if last.executable_code is not None:
            opening, closing = code_block_delimiter
            code = last.executable_code.code or ""
            content.parts[-1] = types.Part(text=f"{opening}{code}{closing}")
        elif len(content.parts) == 1 and last.code_execution_result is not None:
            output = last.code_execution_result.output
            opening, closing = execution_result_delimiters
            text = "" if output is None else f"{opening}{output}{closing}"
            content.parts[-1] = types.Part(text=text)
            content.role = "user"
