"""Validation of the ids that key sessions and events, done before any storage call."""

from __future__ import annotations

import re
from typing import Any

from adk_runtime.errors import ConfigurationError, InputValidationError

MAX_TTL_SECONDS = 100 * 365 * 86_400.0
"""Longest idle TTL a session store takes (about 100 years): every store can date it."""

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


def check_ttl_seconds(ttl_seconds: Any) -> float | None:
    """``ttl_seconds`` as a float, or None (no TTL); else :class:`ConfigurationError`.

    Compared before any conversion, so an integer beyond every float is refused, not an
    ``OverflowError``.
    """
    if ttl_seconds is None:
        return None
    if isinstance(ttl_seconds, bool) or not isinstance(ttl_seconds, (int, float)):
        raise ConfigurationError("ttl_seconds must be a number of seconds or None.")
    if not 0.001 <= ttl_seconds <= MAX_TTL_SECONDS:  # NaN fails this too
        raise ConfigurationError(
            f"ttl_seconds must be from 0.001 to {MAX_TTL_SECONDS:.0f} seconds (about 100 "
            "years), or None."
        )
    return float(ttl_seconds)
