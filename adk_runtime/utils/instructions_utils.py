"""google-adk's path; the names live in :mod:`adk_runtime.core._instructions`."""

from adk_runtime.core._instructions import InstructionProvider, inject_session_state
from adk_runtime.core.readonly_context import ReadonlyContext

__all__ = ["InstructionProvider", "ReadonlyContext", "inject_session_state"]
