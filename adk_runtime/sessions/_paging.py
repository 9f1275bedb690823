"""Keyset pagination of ``list_sessions``, the same on every backend.

Every backend lists sessions newest first: by update time descending, ties broken by user id,
then session id, both descending. A page token is the opaque form of :class:`ListCursor`, the
position of the last session of the previous page, so sessions written or deleted between two
pages cause neither gaps nor repeats among the rest.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
import math
from typing import Any

from adk_runtime.errors import InputValidationError
from adk_runtime.sessions.session import Session

__all__ = ["MAX_PAGE_SIZE", "ListCursor", "ListQuery", "validate_page_size"]

MAX_PAGE_SIZE = 1000
_BAD_TOKEN = "page_token is not a token this service issued."
_LATEST = 253_402_300_799.0  # the last second of year 9999: the latest time a store can keep


@dataclasses.dataclass(frozen=True, order=True)
class ListCursor:
    """A position in the listing order: the sort key of one session.

    Compare cursors as tuples: a session comes after ``cursor`` in the listing exactly when
    its own cursor is smaller.
    """

    update_time: float
    user_id: str
    session_id: str

    @classmethod
    def of(cls, session: Session) -> ListCursor:
        """Return the position of ``session``."""
        return cls(session.last_update_time, session.user_id, session.id)

    def token(self) -> str:
        """Return the opaque page token for this position."""
        raw = json.dumps([self.update_time, self.user_id, self.session_id], separators=(",", ":"))
        return base64.urlsafe_b64encode(raw.encode("utf-8")).decode("ascii").rstrip("=")

    @classmethod
    def from_token(cls, token: Any) -> ListCursor:
        """Parse a token from :meth:`token`.

        Raises:
            InputValidationError: The token was not produced by a session service.
        """
        try:
            padded = token + "=" * (-len(token) % 4)
            update_time, user_id, session_id = json.loads(base64.urlsafe_b64decode(padded))
        except (TypeError, ValueError, binascii.Error, UnicodeError):
            raise InputValidationError(_BAD_TOKEN) from None
        if isinstance(update_time, bool) or not isinstance(update_time, (int, float)):
            raise InputValidationError(_BAD_TOKEN)
        if not (math.isfinite(update_time) and 0 <= update_time <= _LATEST):
            raise InputValidationError(_BAD_TOKEN)
        if not isinstance(user_id, str) or not isinstance(session_id, str):
            raise InputValidationError(_BAD_TOKEN)
        return cls(float(update_time), user_id, session_id)


@dataclasses.dataclass(frozen=True)
class ListQuery:
    """What a backend's ``_list_sessions`` returns: the first ``limit`` sessions after ``after``.

    Attributes:
        app_name: The app whose sessions are listed.
        user_id: Only this user's sessions, or every user's when None.
        limit: At most this many sessions (None: all of them).
        after: Only sessions after this position in the listing order.
    """

    app_name: str
    user_id: str | None
    limit: int | None
    after: ListCursor | None


def validate_page_size(page_size: Any) -> None:
    """Raise :class:`InputValidationError` unless ``page_size`` is None or 1..MAX_PAGE_SIZE."""
    if page_size is None:
        return
    if isinstance(page_size, bool) or not isinstance(page_size, int):
        raise InputValidationError("page_size must be an integer.")
    if not 1 <= page_size <= MAX_PAGE_SIZE:
        raise InputValidationError(f"page_size must be between 1 and {MAX_PAGE_SIZE}.")
