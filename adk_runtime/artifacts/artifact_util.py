"""Artifact references: ``artifact://`` URIs naming one version of a stored artifact.

A part whose ``file_data.file_uri`` is an ``artifact://`` URI is a *reference*: saving it
stores the reference, and loading it returns the artifact it names (following a chain of
references up to :data:`MAX_REFERENCE_DEPTH` hops). A reference never leaves its owner's
scope: it must name the same app and user, and a session artifact it names must belong to
the same session. The URI forms are::

    artifact://apps/{app}/users/{user}/sessions/{session}/artifacts/{filename}/versions/{n}
    artifact://apps/{app}/users/{user}/artifacts/{filename}/versions/{n}   (user: artifacts)

(``google.adk.artifacts.artifact_util`` → here.)
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from google.genai import types

from adk_runtime.errors import InputValidationError

__all__ = [
    "MAX_REFERENCE_DEPTH",
    "ParsedArtifactUri",
    "get_artifact_uri",
    "is_artifact_ref",
    "parse_artifact_uri",
    "resolve_artifact_reference",
    "validate_artifact_reference_scope",
    "validate_path_segment",
]

SCHEME = "artifact://"
MAX_REFERENCE_DEPTH = 5
"""How many references one load follows before it gives up (a chain may loop)."""

_MARKERS = ("apps", "users", "sessions", "artifacts", "versions")
# An id may hold "/" (google-adk allows namespaced ids such as "team/alice") but never a
# whole marker segment, so where each id ends is never ambiguous.
_ID = r"(?:(?!/(?:" + "|".join(_MARKERS) + r")/).)+?"
_SESSION_URI = re.compile(
    rf"apps/({_ID})/users/({_ID})/sessions/({_ID})/artifacts/(.+)/versions/([0-9]+)", re.S
)
_USER_URI = re.compile(rf"apps/({_ID})/users/({_ID})/artifacts/(.+)/versions/([0-9]+)", re.S)
_DRIVE = re.compile(r"[A-Za-z]:")


class ParsedArtifactUri(NamedTuple):
    """The parts of an ``artifact://`` URI (``session_id`` is None for a user artifact)."""

    app_name: str
    user_id: str
    session_id: str | None
    filename: str
    version: int


def parse_artifact_uri(uri: str) -> ParsedArtifactUri | None:
    """Split an ``artifact://`` URI into its parts.

    Args:
        uri: The URI.

    Returns:
        The parts, or None when ``uri`` is not a well-formed artifact URI.
    """
    if not isinstance(uri, str) or not uri.startswith(SCHEME):
        return None
    rest = uri[len(SCHEME) :]
    if found := _SESSION_URI.fullmatch(rest):
        app, user, session, filename, version = found.groups()
        return ParsedArtifactUri(app, user, session, filename, int(version))
    if found := _USER_URI.fullmatch(rest):
        app, user, filename, version = found.groups()
        return ParsedArtifactUri(app, user, None, filename, int(version))
    return None


def get_artifact_uri(
    app_name: str, user_id: str, filename: str, version: int, session_id: str | None = None
) -> str:
    """Build the ``artifact://`` URI of one version.

    Args:
        app_name: The app.
        user_id: The user.
        filename: The artifact's name (``user:…`` for a user artifact).
        version: The version number.
        session_id: The session of a session artifact; None (or empty) for a user artifact.

    Returns:
        The URI, in the form :func:`parse_artifact_uri` reads back.
    """
    scope = f"sessions/{session_id}/" if session_id else ""
    return f"{SCHEME}apps/{app_name}/users/{user_id}/{scope}artifacts/{filename}/versions/{version}"


def is_artifact_ref(artifact: types.Part) -> bool:
    """Whether a part is a reference to another artifact (its file URI is ``artifact://``).

    Args:
        artifact: The part.

    Returns:
        True for a reference.
    """
    file_data = artifact.file_data
    return bool(file_data and file_data.file_uri and file_data.file_uri.startswith(SCHEME))


def validate_artifact_reference_scope(
    *, app_name: str, user_id: str, session_id: str | None, parsed_uri: ParsedArtifactUri
) -> None:
    """Refuse a reference that reaches outside its owner's app, user or session.

    Args:
        app_name: The app of the artifact holding the reference.
        user_id: Its user.
        session_id: Its session (None for a user artifact).
        parsed_uri: The parts of the URI it holds.

    Raises:
        InputValidationError: The reference names another app or user, or a session
            artifact of another session.
    """
    if (parsed_uri.app_name, parsed_uri.user_id) != (app_name, user_id):
        raise InputValidationError(
            "An artifact reference may only name artifacts of its own app and user."
        )
    if parsed_uri.session_id is not None and parsed_uri.session_id != session_id:
        raise InputValidationError(
            "An artifact reference may only name session artifacts of its own session."
        )


def resolve_artifact_reference(
    *,
    file_uri: str,
    app_name: str,
    user_id: str,
    session_id: str | None,
    remaining_depth: int,
) -> ParsedArtifactUri:
    """Check one hop of a reference chain and return where it points.

    Args:
        file_uri: The ``artifact://`` URI held by the artifact being loaded.
        app_name: The app of that artifact.
        user_id: Its user.
        session_id: Its session (None for a user artifact).
        remaining_depth: Hops still allowed; a load starts at :data:`MAX_REFERENCE_DEPTH`
            and passes one less on each hop.

    Returns:
        The parts of the URI.

    Raises:
        InputValidationError: The chain is too long (it may loop), the URI is malformed,
            or it reaches outside the owner's scope.
    """
    if remaining_depth <= 0:
        raise InputValidationError(
            f"Gave up following artifact references after {MAX_REFERENCE_DEPTH} hops "
            "(the chain is too long or loops)."
        )
    parsed = parse_artifact_uri(file_uri)
    if parsed is None:
        raise InputValidationError(f"{file_uri[:120]!r} is not a valid artifact:// reference.")
    validate_artifact_reference_scope(
        app_name=app_name, user_id=user_id, session_id=session_id, parsed_uri=parsed
    )
    return parsed


def validate_path_segment(value: Any, field_name: str) -> None:
    """Refuse an id that could change the storage path built from it.

    A string id must be non-empty, without NUL, not absolute (no leading slash or backslash,
    no drive letter), without a ``.`` or ``..`` part, and when it holds separators none of
    its parts may be a URI marker (``apps``, ``users``, ``sessions``, ``artifacts``,
    ``versions``). Values that are not strings are left to the caller's own checks.

    Args:
        value: The id.
        field_name: Its name, for the message.

    Raises:
        InputValidationError: The id is unsafe.
    """
    if not isinstance(value, str):
        if not value:
            raise InputValidationError(f"{field_name} is empty.")
        return
    problem = _segment_problem(value)
    if problem:
        raise InputValidationError(f"{field_name} {value[:40]!r} is not usable: {problem}.")


def _segment_problem(value: str) -> str:
    if not value.strip():
        return "it is empty"
    if "\x00" in value:
        return "it must not contain null bytes"
    if value[0] in "/\\" or _DRIVE.match(value):
        return "it must not be an absolute path or start with a slash"
    parts = value.replace("\\", "/").split("/")
    if any(part in (".", "..") for part in parts):
        return "it must not contain traversal segments ('.' or '..' parts leave its directory)"
    if len(parts) > 1 and {part.casefold() for part in parts} & set(_MARKERS):
        return "a part of it is a reserved name (apps, users, sessions, artifacts, versions)"
    return ""
