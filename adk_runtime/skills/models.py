"""What a skill is: its front matter, its instructions and its resources.

A skill has three levels of detail, disclosed to the model one after another: the front
matter (name and description, for discovery), the instructions (the body of ``SKILL.md``,
when the model loads the skill) and the resources (files under ``references/``, ``assets/``
and ``scripts/``, read one at a time when the instructions call for them).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator

from adk_runtime.skills._switches import SNAKE_CASE_SKILL_NAME, switch_enabled

__all__ = ["Frontmatter", "Resources", "Script", "Skill"]

MAX_NAME_LENGTH = 64
MAX_DESCRIPTION_LENGTH = 1024
MAX_COMPATIBILITY_LENGTH = 500

_KEBAB = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_SNAKE = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)*")


class Frontmatter(BaseModel):
    """The metadata block at the top of ``SKILL.md``: what the model sees before loading.

    Unknown keys are kept (``extra="allow"``), as in google-adk.

    Attributes:
        name: The skill's name: lowercase letters and digits in words joined by single
            hyphens (``pdf-forms``), at most 64 characters. With google-adk's
            ``SNAKE_CASE_SKILL_NAME`` switch on, words joined by single underscores are
            accepted too (never both delimiters in one name). Must equal the directory name
            when loaded from disk.
        description: What the skill is for and when to use it (1 to 1024 characters).
        license: The skill's license, if stated.
        compatibility: What the skill needs to work (at most 500 characters).
        allowed_tools: Space-separated tools the skill may use; the YAML key is
            ``allowed-tools`` (``allowed_tools`` is accepted too).
        metadata: Free-form settings. Two are read here: ``adk_additional_tools`` (a list
            of tool names the ``SkillToolset`` offers while the skill is active) and
            ``adk_inject_state`` (a bool: fill ``{key}`` placeholders of the instructions
            from the session state when the skill is loaded).
    """

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    name: str
    description: str
    license: str | None = None
    compatibility: str | None = None
    allowed_tools: str | None = Field(
        default=None, alias="allowed-tools", serialization_alias="allowed-tools"
    )
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("name")
    @classmethod
    def _check_name(cls, value: str) -> str:
        value = unicodedata.normalize("NFKC", value)
        if len(value) > MAX_NAME_LENGTH:
            raise ValueError(f"name must be at most {MAX_NAME_LENGTH} characters long")
        if _KEBAB.fullmatch(value):
            return value
        if switch_enabled(SNAKE_CASE_SKILL_NAME):
            if _SNAKE.fullmatch(value):
                return value
            raise ValueError(
                "name must be lowercase kebab-case or snake_case: letters a-z and digits in "
                "words joined by single hyphens or by single underscores (not both), with no "
                "delimiter at either end. Mixing hyphens and underscores is not allowed."
            )
        raise ValueError(
            "name must be lowercase kebab-case: letters a-z and digits in words joined by "
            "single hyphens, with no hyphen at either end"
        )

    @field_validator("description")
    @classmethod
    def _check_description(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("description must not be empty")
        if len(value) > MAX_DESCRIPTION_LENGTH:
            raise ValueError(
                f"description must be at most {MAX_DESCRIPTION_LENGTH} characters. "
                f"Description length: {len(value)}"
            )
        return value

    @field_validator("compatibility")
    @classmethod
    def _check_compatibility(cls, value: str | None) -> str | None:
        if value is not None and len(value) > MAX_COMPATIBILITY_LENGTH:
            raise ValueError(
                f"compatibility must be at most {MAX_COMPATIBILITY_LENGTH} characters long"
            )
        return value

    @field_validator("metadata")
    @classmethod
    def _check_metadata(cls, value: dict[str, Any]) -> dict[str, Any]:
        tools = value.get("adk_additional_tools")
        if tools is not None and (
            not isinstance(tools, list) or not all(isinstance(t, str) for t in tools)
        ):
            raise ValueError("adk_additional_tools must be a list of strings (tool names)")
        inject = value.get("adk_inject_state")
        if inject is not None and not isinstance(inject, bool):
            raise ValueError("adk_inject_state must be a bool (true or false)")
        return value


class Script(BaseModel):
    """The source of one file under ``scripts/``."""

    src: str

    def __str__(self) -> str:
        """The source text."""
        return self.src


class Resources(BaseModel):
    """A skill's files, by path relative to their folder (``"guide.md"``, ``"a/b.csv"``).

    Text files are ``str``; files that are not UTF-8 are ``bytes``.

    Attributes:
        references: Further instructions and documentation (``references/``).
        assets: Templates, data and other material (``assets/``).
        scripts: Code the skill may run through a code executor (``scripts/``).
    """

    references: dict[str, str | bytes] = Field(default_factory=dict)
    assets: dict[str, str | bytes] = Field(default_factory=dict)
    scripts: dict[str, Script] = Field(default_factory=dict)

    def get_reference(self, reference_id: str) -> str | bytes | None:
        """The reference at ``reference_id``, or None."""
        return self.references.get(reference_id)

    def get_asset(self, asset_id: str) -> str | bytes | None:
        """The asset at ``asset_id``, or None."""
        return self.assets.get(asset_id)

    def get_script(self, script_id: str) -> Script | None:
        """The script at ``script_id``, or None."""
        return self.scripts.get(script_id)

    def list_references(self) -> list[str]:
        """The paths of the references."""
        return list(self.references)

    def list_assets(self) -> list[str]:
        """The paths of the assets."""
        return list(self.assets)

    def list_scripts(self) -> list[str]:
        """The paths of the scripts."""
        return list(self.scripts)


class Skill(BaseModel):
    """A whole skill: front matter, instructions (the ``SKILL.md`` body) and resources.

    Attributes:
        frontmatter: The metadata.
        instructions: The markdown body of ``SKILL.md``.
        resources: The files of ``references/``, ``assets/`` and ``scripts/``.
    """

    frontmatter: Frontmatter
    instructions: str
    resources: Resources = Field(default_factory=Resources)

    _uri: str | None = PrivateAttr(default=None)
    """Where the skill was loaded from (a ``file://`` URI), when it was loaded from disk."""

    @property
    def name(self) -> str:
        """The skill's name."""
        return self.frontmatter.name

    @property
    def description(self) -> str:
        """The skill's description."""
        return self.frontmatter.description
