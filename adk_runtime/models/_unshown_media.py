"""A note for media a tool returned that a model's API cannot take.

The function response, media included, is stored in the conversation and sent again on
every later turn, so refusing the media would fail each of them; the model is told instead
that the tool returned an attachment it is not shown.
"""

from __future__ import annotations

import logging

__all__ = ["unshown_media_note"]

logger = logging.getLogger(__name__)


def unshown_media_note(tool_name: str | None, mime_type: str, api: str) -> str:
    """The text sent in place of the tool's media of ``mime_type`` (logged as a warning)."""
    logger.warning(
        "Tool %r returned media of type %r, which %s cannot take; the model gets a note.",
        tool_name,
        mime_type,
        api,
    )
    return f"[The tool {tool_name} returned a {mime_type} attachment, which is not shown here.]"
