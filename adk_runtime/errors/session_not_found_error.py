"""``google.adk.errors.session_not_found_error`` → here: the error of :mod:`adk_runtime.errors`."""

from adk_runtime.errors import SessionNotFoundError

__all__ = ["SessionNotFoundError"]
