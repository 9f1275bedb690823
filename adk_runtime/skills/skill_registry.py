"""SkillRegistry: a source of skills fetched by name at run time (a catalog service...)."""

from __future__ import annotations

from abc import ABC, abstractmethod

from adk_runtime.skills.models import Frontmatter, Skill

__all__ = ["SkillRegistry"]


class SkillRegistry(ABC):
    """Skills the ``SkillToolset`` finds with ``search_skills`` and loads by name.

    A registry's skills are untrusted input like any other: the toolset only reads them.
    """

    @abstractmethod
    async def get_skill(self, *, name: str) -> Skill:
        """The skill called ``name``.

        Raises:
            Exception: There is no such skill, or the registry failed.
        """

    @abstractmethod
    async def search_skills(self, *, query: str) -> list[Frontmatter]:
        """The front matter of the skills matching ``query`` (keywords or a question)."""

    def search_tool_description(self) -> str | None:
        """The description of the ``search_skills`` tool for this registry; None: default."""
        return None
