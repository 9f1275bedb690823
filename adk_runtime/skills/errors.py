"""Typed errors of skill loading (all ``ValueError``s or ``FileNotFoundError``s, as in ADK).

google-adk raises ``ValueError`` for an invalid skill and ``FileNotFoundError`` for a missing
one; these subclass those, so code written against google-adk keeps catching them. Messages
name the skill directory and the offending relative path, never file contents.
"""

from __future__ import annotations

from adk_runtime.errors import AdkRuntimeError

__all__ = [
    "InvalidSkillError",
    "SkillLoadError",
    "SkillNotFoundError",
    "SkillTooLargeError",
    "UnsafeSkillPathError",
]


class SkillLoadError(AdkRuntimeError, ValueError):
    """A skill directory could not be loaded."""


class InvalidSkillError(SkillLoadError):
    """``SKILL.md`` is malformed: no front matter, bad YAML, or fields that fail validation."""


class UnsafeSkillPathError(SkillLoadError):
    """A path of the skill leaves its directory (``..``, an absolute path, or a symlink)."""


class SkillTooLargeError(SkillLoadError):
    """A file of the skill, or the whole skill, is over the size or file-count limit."""


class SkillNotFoundError(AdkRuntimeError, FileNotFoundError):
    """The skill directory, or its ``SKILL.md``, does not exist."""
