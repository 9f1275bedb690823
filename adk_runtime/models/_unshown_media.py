"""A note for media a model's API cannot take, sent in its place.

Messages and function responses, media included, are stored in the conversation and sent
again on every later turn, so refusing such media would fail each of them and leave the
conversation unusable; the model is told instead that an attachment is there and not shown
(and can say so to the user).
"""

from __future__ import annotations

import logging

__all__ = ["unshown_media_note"]

logger = logging.getLogger(__name__)


def unshown_media_note(mime_type: str, api: str, *, tool_name: str | None = None) -> str:
    """The text sent in place of media of ``mime_type`` (logged as a warning).

    Args:
        mime_type: The media's MIME type.
        api: Whose API cannot take it (``"Claude"``, ``"LiteLLM"``).
        tool_name: The tool that returned it; None for media in a message.
    """
    logger.warning(
        "Media of type %r (%s) cannot be sent to %s; the model gets a note instead.",
        mime_type,
        f"returned by tool {tool_name!r}" if tool_name else "in a message",
        api,
    )
    origin = f"The tool {tool_name} returned" if tool_name else "Here is"
    return f"[{origin} a {mime_type} attachment, which {api} cannot take: it is not shown.]"
