"""Metadata keys and context ids shared by the A2A converters."""

from __future__ import annotations

from urllib.parse import quote, unquote

ADK_METADATA_KEY_PREFIX = "adk_"
ADK_CONTEXT_ID_PREFIX = "ADK"
ADK_CONTEXT_ID_SEPARATOR = "/"


def _get_adk_metadata_key(key: str) -> str:
    """The A2A metadata key under which ``key`` travels (``adk_`` + key).

    Raises:
        ValueError: ``key`` is empty.
    """
    if not key:
        raise ValueError("Metadata key cannot be empty or None")
    return ADK_METADATA_KEY_PREFIX + key


def _to_a2a_context_id(app_name: str, user_id: str, session_id: str) -> str:
    """``ADK/<app>/<user>/<session>``, each field percent-encoded.

    Raises:
        ValueError: One of the three is empty.
    """
    if not (app_name and user_id and session_id):
        raise ValueError("All parameters (app_name, user_id, session_id) must be non-empty")
    fields = (quote(value, safe="") for value in (app_name, user_id, session_id))
    return ADK_CONTEXT_ID_SEPARATOR.join((ADK_CONTEXT_ID_PREFIX, *fields))


def _from_a2a_context_id(
    context_id: str | None,
) -> tuple[str, str, str] | tuple[None, None, None]:
    """The app, user and session of a context id made by ``_to_a2a_context_id``.

    Anything else (None, another shape, an empty field) gives ``(None, None, None)``.
    """
    pieces = (context_id or "").split(ADK_CONTEXT_ID_SEPARATOR)
    if len(pieces) != 4 or pieces[0] != ADK_CONTEXT_ID_PREFIX:
        return None, None, None
    app_name, user_id, session_id = (unquote(piece) for piece in pieces[1:])
    if app_name and user_id and session_id:
        return app_name, user_id, session_id
    return None, None, None
