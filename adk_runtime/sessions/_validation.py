"""Validation of the ids that key sessions and events, done before any storage call."""

from __future__ import annotations

import re
from typing import Any

from adk_runtime.errors import InputValidationError

MAX_ID_LENGTH = 128
"""Longest accepted app name, user id, session id or event id (characters)."""

_FORBIDDEN = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def _preview(value: str) -> str:
    return repr(value[:32] + ("…" if len(value) > 32 else ""))


def validate_id(value: Any, what: str) -> str:
    """Return ``value`` if it is a usable id, else raise :class:`InputValidationError`.

    An id is a non-empty string of at most :data:`MAX_ID_LENGTH` characters without control
    characters (including NUL) or lone surrogates.
    """
    if not isinstance(value, str):
        raise InputValidationError(f"{what} must be a string, not {type(value).__name__}.")
    if not value:
        raise InputValidationError(f"{what} must not be empty.")
    if len(value) > MAX_ID_LENGTH:
        raise InputValidationError(
            f"{what} is {len(value)} characters long; the limit is {MAX_ID_LENGTH}."
        )
    if "\x00" in value:
        raise InputValidationError(f"{what} {_preview(value)} must not contain null bytes.")
    if _FORBIDDEN.search(value):
        raise InputValidationError(
            f"{what} {_preview(value)} contains a control character or an invalid code point."
        )
    return value


def validate_session_key(app_name: Any, user_id: Any, session_id: Any) -> None:
    """Validate the three parts of a session key."""
    validate_id(app_name, "app_name")
    validate_id(user_id, "user_id")
    validate_id(session_id, "session_id")


def validate_optional_text(value: Any, what: str) -> None:
    """Validate a short label that may be empty (an invocation id, an author)."""
    if not isinstance(value, str):
        raise InputValidationError(f"{what} must be a string, not {type(value).__name__}.")
    if value:
        validate_id(value, what)
