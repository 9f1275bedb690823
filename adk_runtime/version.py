"""``google.adk.version`` → here: the installed adk_runtime's version."""

from __future__ import annotations

from adk_runtime import __version__

__all__ = ["__version__"]
