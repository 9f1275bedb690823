"""google-adk's path; the names live in :mod:`adk_runtime.core.callback_context`."""

from adk_runtime.core.callback_context import CallbackContext

__all__ = ["CallbackContext"]
