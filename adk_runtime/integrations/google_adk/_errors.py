"""adk_runtime's errors as the google-adk error types google-adk's code catches.

Each error raised through the adapters is an instance of both: google-adk's Runner and
``adk api_server`` see their own ``StaleSessionError`` / ``AlreadyExistsError`` /
``SessionNotFoundError`` / ``InputValidationError``, and code written against adk_runtime
still catches adk_runtime's.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from google.adk import errors as google_errors
from google.adk.errors.already_exists_error import AlreadyExistsError as GoogleAlreadyExists
from google.adk.errors.input_validation_error import (
    InputValidationError as GoogleInputValidation,
)
from google.adk.errors.session_not_found_error import (
    SessionNotFoundError as GoogleSessionNotFound,
)

from adk_runtime import errors

__all__ = ["google_errors_of"]


class StaleSessionError(google_errors.StaleSessionError, errors.StaleSessionError):
    """A stale (or busy, or re-created) session: nothing was written."""


class AlreadyExistsError(GoogleAlreadyExists, errors.AlreadyExistsError):
    """The session already exists; nothing changed."""


class SessionNotFoundError(GoogleSessionNotFound, errors.SessionNotFoundError):
    """The session does not exist."""


class InputValidationError(GoogleInputValidation, errors.InputValidationError):
    """An id or a value is malformed; nothing was written."""


_MAPPED: tuple[tuple[type[Exception], type[Exception]], ...] = (
    (errors.StaleSessionError, StaleSessionError),
    (errors.AlreadyExistsError, AlreadyExistsError),
    (errors.SessionNotFoundError, SessionNotFoundError),
    (errors.InputValidationError, InputValidationError),
)


@contextlib.contextmanager
def google_errors_of() -> Iterator[None]:
    """Re-raise adk_runtime's errors as the matching google-adk error (message kept)."""
    try:
        yield
    except (
        errors.StaleSessionError,
        errors.AlreadyExistsError,
        errors.SessionNotFoundError,
        errors.InputValidationError,
    ) as exc:
        for ours, theirs in _MAPPED:
            if isinstance(exc, ours):
                raise theirs(str(exc)) from exc
        raise  # pragma: no cover - every caught type is mapped
