"""CodeExecutorContext: what a code executor keeps in the session state between runs."""

from __future__ import annotations

import copy
import dataclasses
import time
from collections.abc import MutableMapping
from typing import Any, TypeAlias, cast

from adk_runtime.code_executors.code_execution_utils import File
from adk_runtime.sessions.state import State

__all__ = ["CodeExecutorContext"]

CONTEXT_KEY = "_code_execution_context"
"""State key of the executor's own settings (execution id, processed file names)."""
INPUT_FILES_KEY = "_code_executor_input_files"
"""State key of the files given to every run (a list of ``File`` fields)."""
ERROR_COUNTS_KEY = "_code_executor_error_counts"
"""State key of the failed runs in a row, per invocation id."""
RESULTS_KEY = "_code_execution_results"
"""State key of the runs' history, per invocation id."""

_EXECUTION_ID = "execution_session_id"
_PROCESSED_FILES = "processed_input_files"

SessionState: TypeAlias = "State | MutableMapping[str, Any]"


class CodeExecutorContext:
    """A code executor's persistent context, read from and written to a session state.

    Give it a state that records writes — a callback's or tool's ``context.state``, or a
    ``State`` — and every change rides on the next committed event, on every backend: the
    values written are plain JSON values (file contents as ``str`` or ``bytes``). Values read
    from the state are copied before they are changed, so the session's committed state is
    never changed in place.

    The executor's own settings (:meth:`get_execution_id`, processed file names) live under
    one key, ``_code_execution_context``; :meth:`get_state_delta` returns that key's value
    for an event's ``state_delta``.
    """

    def __init__(self, session_state: SessionState) -> None:
        """Read the context of ``session_state`` (nothing is written until a change)."""
        self._session_state = session_state
        stored = session_state.get(CONTEXT_KEY)
        self._context: dict[str, Any] = copy.deepcopy(stored) if isinstance(stored, dict) else {}

    def get_state_delta(self) -> dict[str, Any]:
        """``{"_code_execution_context": <the settings>}``, for an event's ``state_delta``."""
        return {CONTEXT_KEY: copy.deepcopy(self._context)}

    def get_execution_id(self) -> str | None:
        """The id of the stateful execution environment, or None when none is set."""
        return cast("str | None", self._context.get(_EXECUTION_ID))

    def set_execution_id(self, session_id: str) -> None:
        """Remember the id of the stateful execution environment to reuse."""
        self._set_context(_EXECUTION_ID, session_id)

    def get_processed_file_names(self) -> list[str]:
        """The names of the input files already handed to the executor."""
        return list(cast("list[str]", self._context.get(_PROCESSED_FILES) or []))

    def add_processed_file_names(self, file_names: list[str]) -> None:
        """Add ``file_names`` to the processed files."""
        self._set_context(_PROCESSED_FILES, [*self.get_processed_file_names(), *file_names])

    def get_input_files(self) -> list[File]:
        """The input files stored in the session state."""
        stored = cast("list[dict[str, Any]]", self._session_state.get(INPUT_FILES_KEY) or [])
        return [File(**item) for item in stored]

    def add_input_files(self, input_files: list[File]) -> None:
        """Store ``input_files`` after the ones already stored."""
        stored = [dataclasses.asdict(file) for file in self.get_input_files()]
        stored += [dataclasses.asdict(file) for file in input_files]
        self._session_state[INPUT_FILES_KEY] = stored

    def clear_input_files(self) -> None:
        """Forget the input files and the processed file names (when there are any)."""
        if INPUT_FILES_KEY in self._session_state:
            self._session_state[INPUT_FILES_KEY] = []
        if _PROCESSED_FILES in self._context:
            self._set_context(_PROCESSED_FILES, [])

    def get_error_count(self, invocation_id: str) -> int:
        """Failed runs in a row recorded for ``invocation_id`` (0 when none)."""
        return int(self._error_counts().get(invocation_id, 0))

    def increment_error_count(self, invocation_id: str) -> None:
        """Record one more failed run for ``invocation_id``."""
        counts = self._error_counts()
        counts[invocation_id] = int(counts.get(invocation_id, 0)) + 1
        self._session_state[ERROR_COUNTS_KEY] = counts

    def reset_error_count(self, invocation_id: str) -> None:
        """Forget the failed runs of ``invocation_id`` (nothing is written when there are none)."""
        if ERROR_COUNTS_KEY not in self._session_state:
            return
        counts = self._error_counts()
        counts.pop(invocation_id, None)
        self._session_state[ERROR_COUNTS_KEY] = counts

    def update_code_execution_result(
        self, invocation_id: str, code: str, result_stdout: str, result_stderr: str
    ) -> None:
        """Append a run (its code, stdout, stderr and Unix time) to ``invocation_id``'s history."""
        stored = self._session_state.get(RESULTS_KEY)
        results = copy.deepcopy(stored) if isinstance(stored, dict) else {}
        runs = cast("dict[str, list[dict[str, Any]]]", results).setdefault(invocation_id, [])
        runs.append(
            {
                "code": code,
                "result_stdout": result_stdout,
                "result_stderr": result_stderr,
                "timestamp": int(time.time()),
            }
        )
        self._session_state[RESULTS_KEY] = results

    def _error_counts(self) -> dict[str, int]:
        stored = self._session_state.get(ERROR_COUNTS_KEY)
        return dict(cast("dict[str, int]", stored)) if isinstance(stored, dict) else {}

    def _set_context(self, key: str, value: Any) -> None:
        self._context[key] = value
        self._session_state[CONTEXT_KEY] = copy.deepcopy(self._context)
