"""Checks on artifact keys, shared by every artifact store."""

from __future__ import annotations

from adk_runtime.errors import InputValidationError
from adk_runtime.sessions._validation import validate_id, validate_session_key

MAX_FILENAME_LENGTH = 255


def validate_artifact_key(app_name: str, user_id: str, session_id: str, filename: str) -> None:
    """Validate the ids and the filename of an artifact.

    Filenames may contain ``/`` (a logical folder) but no ``..`` segment, no leading ``/``,
    no backslash and no control characters.
    """
    validate_session_key(app_name, user_id, session_id)
    validate_filename(filename)


def validate_filename(filename: str) -> None:
    """Raise :class:`InputValidationError` unless ``filename`` is a safe artifact name."""
    if not isinstance(filename, str):
        raise InputValidationError("filename must be a string.")
    if len(filename) > MAX_FILENAME_LENGTH:
        raise InputValidationError(f"filename is longer than {MAX_FILENAME_LENGTH} characters.")
    validate_id(filename[:128] or filename, "filename")
    if any(ord(ch) < 32 or 0x7F <= ord(ch) <= 0x9F for ch in filename):
        raise InputValidationError("filename contains a control character.")
    bare = filename[len("user:") :] if filename.startswith("user:") else filename
    if not bare or bare.startswith("/") or "\\" in bare:
        raise InputValidationError(f"filename {filename[:40]!r} is not a relative name.")
    if any(part in ("", ".", "..") for part in bare.split("/")):
        raise InputValidationError(f"filename {filename[:40]!r} has an empty, '.' or '..' part.")


def validate_version(version: int | None) -> None:
    """Raise :class:`InputValidationError` unless ``version`` is None or a non-negative int."""
    if version is None:
        return
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        raise InputValidationError("version must be a non-negative integer.")
