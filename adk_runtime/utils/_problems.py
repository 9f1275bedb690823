"""One line naming what a pydantic validation error found wrong, never the values."""

from __future__ import annotations

from pydantic import ValidationError

__all__ = ["problems"]


def problems(error: ValidationError) -> str:
    """Where and what is wrong in ``error``, never the value (``title: Input should...``)."""
    return "; ".join(
        f"{'.'.join(map(str, issue['loc'])) or '(value)'}: {issue['msg']}"
        for issue in error.errors(include_input=False)
    )
