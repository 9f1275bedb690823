"""A note for media a model's API cannot take, sent in its place.

Messages and function responses, media included, are stored in the conversation and sent
again on every later turn, so refusing such media would fail each of them and leave the
conversation unusable; the model is told instead that an attachment is there and not shown
(and can say so to the user).
"""

from __future__ import annotations

import logging
import re

__all__ = ["bare_mime_type", "shown_mime_type", "unshown_media_note"]

logger = logging.getLogger(__name__)

_MIME_TYPE = re.compile(r"[a-z0-9][a-z0-9!#$&^_.+-]{0,63}/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}")


def bare_mime_type(mime_type: str) -> str:
    """``mime_type`` without parameters, lower case (``"Image/PNG; q=1"`` → ``"image/png"``)."""
    return mime_type.split(";", 1)[0].strip().lower()


def shown_mime_type(mime_type: str) -> str:
    """The bare MIME type, or ``unknown`` for text that is not one (it reaches the model)."""
    bare = bare_mime_type(mime_type)
    return bare if _MIME_TYPE.fullmatch(bare) else "unknown"


def unshown_media_note(mime_type: str, api: str, *, tool_name: str | None = None) -> str:
    """The text sent in place of media of ``mime_type`` (logged as a warning).

    Args:
        mime_type: The media's MIME type.
        api: Whose API cannot take it (``"Claude"``, ``"LiteLLM"``).
        tool_name: The tool that returned it; None for media in a message.
    """
    mime_type = shown_mime_type(mime_type)
    logger.warning(
        "Media of type %r (%s) cannot be sent to %s; the model gets a note instead.",
        mime_type,
        f"returned by tool {tool_name!r}" if tool_name else "in a message",
        api,
    )
    origin = f"The tool {tool_name} returned" if tool_name else "Here is"
    return f"[{origin} an attachment of type {mime_type}, which {api} cannot take: not shown.]"
