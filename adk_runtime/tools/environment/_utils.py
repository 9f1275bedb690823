"""What the environment tools share: output truncation, the error-response check."""

from __future__ import annotations

from typing import Any

from adk_runtime.tools.environment._constants import MAX_OUTPUT_CHARS

__all__ = ["error_type", "truncate"]


def truncate(text: str, limit: int = MAX_OUTPUT_CHARS) -> str:
    """``text`` cut to ``limit`` characters, with a note of its full length when cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n... (truncated, {len(text)} total chars)"


def error_type(response: Any) -> str | None:
    """``"TOOL_ERROR"`` for a response whose status is ``"error"`` (for telemetry)."""
    if isinstance(response, dict) and response.get("status") == "error":
        return "TOOL_ERROR"
    return None
