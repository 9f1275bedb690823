"""``google.adk.version`` → here: the installed adk_runtime's version."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
