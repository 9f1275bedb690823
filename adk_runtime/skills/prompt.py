"""The skill catalog as the model reads it: an ``<available_skills>`` XML block."""

from __future__ import annotations

import html
from collections.abc import Sequence

from adk_runtime.skills import models
from adk_runtime.skills._instruction import DEFAULT_SKILL_SYSTEM_INSTRUCTION

__all__ = ["DEFAULT_SKILL_SYSTEM_INSTRUCTION", "format_skills_as_xml"]


def format_skills_as_xml(skills: Sequence[models.Frontmatter | models.Skill]) -> str:
    """The name and description of each skill in an ``<available_skills>`` block.

    Names and descriptions are HTML-escaped, so a description cannot close the block.

    Args:
        skills: Front matters or whole skills.

    Returns:
        The XML text (an empty block when there are no skills).
    """
    lines = ["<available_skills>"]
    for skill in skills:
        lines += [
            "<skill>",
            "<name>",
            html.escape(skill.name),
            "</name>",
            "<description>",
            html.escape(skill.description),
            "</description>",
            "</skill>",
        ]
    lines.append("</available_skills>")
    return "\n".join(lines)
