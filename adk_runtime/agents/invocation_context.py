"""google-adk's path; the names live in :mod:`adk_runtime.core.invocation_context`."""

from adk_runtime.core.invocation_context import (
    InvocationContext,
    LlmCallsLimitExceededError,
    new_invocation_context_id,
)

__all__ = ["InvocationContext", "LlmCallsLimitExceededError", "new_invocation_context_id"]
