"""google-adk's path; the names live in :mod:`adk_runtime.core.readonly_context`."""

from adk_runtime.core.readonly_context import ReadonlyContext

__all__ = ["ReadonlyContext"]
