r"""Checks on artifact keys, shared by every artifact store.

The rules are the same on every store, so a name accepted in memory is accepted on disk and
in a database. Ids are those the session stores accept, and may be namespaced
(``group/alice``, ``DOMAIN\\alice``, as in google-adk) but never absolute, never with a
``.`` or ``..`` part and never with a part naming a level of an artifact URI (``apps``,
``users``, ...): the file store percent-encodes each id into one directory name, so an id
never reaches outside its own folder. Filenames are relative names whose ``/``-separated
parts are never empty, ``.`` or ``..``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from adk_runtime.artifacts.artifact_util import validate_path_segment
from adk_runtime.artifacts.base import USER_PREFIX
from adk_runtime.errors import InputValidationError
from adk_runtime.sessions._validation import validate_id

MAX_FILENAME_LENGTH = 255
MAX_VERSION = 2**62


@dataclasses.dataclass(frozen=True)
class ArtifactKey:
    """Where an artifact lives: ``scope`` is the session id, or ``""`` for a ``user:`` name."""

    app_name: str
    user_id: str
    scope: str
    filename: str

    @property
    def is_user(self) -> bool:
        """Whether the artifact belongs to the user rather than one session."""
        return self.scope == ""


def validate_segment(value: Any, what: str) -> str:
    """Validate an id that names a level of an artifact's address (see the module docstring)."""
    validate_id(value, what)
    validate_path_segment(value, what)
    return str(value)


def artifact_key(app_name: Any, user_id: Any, session_id: Any, filename: Any) -> ArtifactKey:
    """Validate the parts of an artifact's address and return its key."""
    validate_segment(app_name, "app_name")
    validate_segment(user_id, "user_id")
    validate_filename(filename)
    if session_id is not None:
        validate_segment(session_id, "session_id")
    if filename.startswith(USER_PREFIX):
        return ArtifactKey(app_name, user_id, "", filename)
    if session_id is None:
        raise InputValidationError(
            f"session_id is required for the session artifact {filename[:40]!r} "
            "(only 'user:' artifacts can be addressed without a session)."
        )
    return ArtifactKey(app_name, user_id, session_id, filename)


def validate_scope(app_name: Any, user_id: Any, session_id: Any) -> None:
    """Validate the ids given to ``list_artifact_keys``."""
    validate_segment(app_name, "app_name")
    validate_segment(user_id, "user_id")
    if session_id is not None:
        validate_segment(session_id, "session_id")


def validate_filename(filename: Any) -> None:
    """Raise :class:`InputValidationError` unless ``filename`` is a safe artifact name."""
    if not isinstance(filename, str):
        raise InputValidationError(f"filename must be a string, not {type(filename).__name__}.")
    if len(filename) > MAX_FILENAME_LENGTH:
        raise InputValidationError(f"filename is longer than {MAX_FILENAME_LENGTH} characters.")
    validate_id(filename[:128], "filename")
    validate_id(filename[128:] or "x", "filename")
    bare = filename[len(USER_PREFIX) :] if filename.startswith(USER_PREFIX) else filename
    if not bare or bare.startswith("/") or "\\" in bare:
        raise InputValidationError(f"filename {filename[:40]!r} is not a relative name.")
    if any(part in ("", ".", "..") for part in bare.split("/")):
        raise InputValidationError(f"filename {filename[:40]!r} has an empty, '.' or '..' part.")


def validate_version(version: Any) -> None:
    """Raise :class:`InputValidationError` unless ``version`` is None or a non-negative int."""
    if version is None:
        return
    if isinstance(version, bool) or not isinstance(version, int) or not 0 <= version <= MAX_VERSION:
        raise InputValidationError(
            f"version must be None or an integer from 0 to {MAX_VERSION}, not {version!r:.40}."
        )
