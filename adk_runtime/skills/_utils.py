"""Loading skills from directories: ``SKILL.md`` (YAML front matter + body) and resources.

A skill directory holds ``SKILL.md`` (or ``skill.md``) and optionally ``references/``,
``assets/`` and ``scripts/``. Its name in the front matter must equal the directory name.
Every file is read through :class:`~adk_runtime.skills._files.SkillReader` (containment,
symlinks, sizes); the front matter is parsed with PyYAML's safe loader, with aliases refused
(an alias "bomb" cannot expand). Nothing in a skill is executed when it is loaded.

The ``*_async`` variants run the same work in a worker thread (``asyncio.to_thread``), so the
event loop never waits on the file system.
"""

from __future__ import annotations

import asyncio
import logging
import pathlib
from collections.abc import Callable
from typing import Any

import yaml
from pydantic import ValidationError

from adk_runtime.skills import models
from adk_runtime.skills._files import SkillReader, validate_relative_path
from adk_runtime.skills._gcs import (
    _list_skills_in_gcs_dir,
    _list_skills_in_gcs_dir_async,
    _load_skill_from_gcs_dir,
    _load_skill_from_gcs_dir_async,
)
from adk_runtime.skills.errors import InvalidSkillError, SkillNotFoundError, UnsafeSkillPathError

__all__ = [
    "_list_skills_in_dir",
    "_list_skills_in_dir_async",
    "_list_skills_in_gcs_dir",
    "_list_skills_in_gcs_dir_async",
    "_load_skill_from_dir",
    "_load_skill_from_dir_async",
    "_load_skill_from_gcs_dir",
    "_load_skill_from_gcs_dir_async",
    "_load_skills_from_dir",
    "_load_skills_from_dir_async",
    "_validate_relative_resource_path",
]

logger = logging.getLogger(__name__)

_MANIFESTS = ("SKILL.md", "skill.md")
_FENCE = "---"
_KNOWN_KEYS = frozenset(
    {
        "name",
        "description",
        "license",
        "allowed-tools",
        "allowed_tools",
        "metadata",
        "compatibility",
    }
)

_validate_relative_resource_path = validate_relative_path


class _NoAliasLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing anchors and aliases (no expansion bombs)."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            raise yaml.YAMLError("aliases are not allowed in skill front matter")
        return super().compose_node(parent, index)


def _parse_skill_md_content(content: str) -> tuple[dict[str, Any], str]:
    """Split ``SKILL.md`` into its front matter (a mapping) and its stripped body.

    Raises:
        InvalidSkillError: No front matter fence, an unclosed one, bad YAML, not a mapping.
    """
    lines = content.removeprefix("\ufeff").splitlines()
    if not lines or lines[0].strip() != _FENCE:
        raise InvalidSkillError("SKILL.md must start with YAML front matter: a line '---'.")
    try:
        end = next(i for i, line in enumerate(lines[1:], 1) if line.strip() == _FENCE)
    except StopIteration:
        raise InvalidSkillError(
            "SKILL.md front matter is not closed: add a line '---' after it."
        ) from None
    try:
        parsed = yaml.load("\n".join(lines[1:end]), Loader=_NoAliasLoader)
    except yaml.YAMLError as exc:
        raise InvalidSkillError(f"Invalid YAML in SKILL.md front matter{_where(exc)}.") from None
    if not isinstance(parsed, dict):
        raise InvalidSkillError("SKILL.md front matter must be a YAML mapping (key: value).")
    return parsed, "\n".join(lines[end + 1 :]).strip()


def _where(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    if mark is None:
        return f" ({exc})" if "alias" in str(exc) else ""
    return f" (line {mark.line + 2}, column {mark.column + 1})"


def _frontmatter(parsed: dict[str, Any], where: str) -> models.Frontmatter:
    """Validate the front matter; the error lists fields and reasons, never the values."""
    try:
        return models.Frontmatter.model_validate(parsed)
    except ValidationError as exc:
        reasons = "; ".join(
            f"{'.'.join(str(p) for p in error['loc']) or 'front matter'}: {error['msg']}"
            for error in exc.errors(include_input=False, include_url=False)
        )
        raise InvalidSkillError(f"Invalid front matter in {where}: {reasons}") from None


def _manifest(skill_dir: pathlib.Path) -> pathlib.Path:
    if not skill_dir.is_dir():
        raise SkillNotFoundError(f"Skill directory {str(skill_dir)!r} not found.")
    for name in _MANIFESTS:
        path = skill_dir / name
        if path.exists() or path.is_symlink():
            return path
    raise SkillNotFoundError(f"SKILL.md not found in {str(skill_dir)!r}.")


def _read_manifest(reader: SkillReader) -> tuple[dict[str, Any], str]:
    data = reader.read(_manifest(reader.root))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidSkillError(f"SKILL.md of {reader.root.name!r} is not UTF-8 text.") from None
    return _parse_skill_md_content(text)


def _checked_name(frontmatter: models.Frontmatter, skill_dir: pathlib.Path) -> None:
    if frontmatter.name != skill_dir.name:
        raise InvalidSkillError(
            f"Skill name {frontmatter.name!r} does not match directory name "
            f"{skill_dir.name!r}; rename one of them."
        )


def _read_skill_properties(skill_dir: str | pathlib.Path) -> models.Frontmatter:
    """The front matter of the skill in ``skill_dir`` alone (no body, no resources)."""
    root = pathlib.Path(skill_dir).resolve()
    parsed, _ = _read_manifest(SkillReader(root))
    return _frontmatter(parsed, f"skill {root.name!r}")


def _validate_skill_dir(skill_dir: str | pathlib.Path) -> list[str]:
    """The problems of the skill in ``skill_dir`` (unknown keys included); empty when valid."""
    root = pathlib.Path(skill_dir).resolve()
    try:
        parsed, _ = _read_manifest(SkillReader(root))
    except (SkillNotFoundError, InvalidSkillError, UnsafeSkillPathError) as exc:
        return [str(exc)]
    problems: list[str] = []
    unknown = sorted(set(parsed) - _KNOWN_KEYS)
    if unknown:
        problems.append(f"Unknown front matter fields: {unknown}")
    try:
        frontmatter = _frontmatter(parsed, f"skill {root.name!r}")
    except InvalidSkillError as exc:
        return [*problems, str(exc)]
    if frontmatter.name != root.name:
        problems.append(
            f"Skill name {frontmatter.name!r} does not match directory name {root.name!r}."
        )
    return problems


def _load_skill_from_dir(skill_dir: str | pathlib.Path) -> models.Skill:
    """Load the whole skill in ``skill_dir``.

    Raises:
        SkillNotFoundError: No such directory, or no ``SKILL.md`` in it.
        InvalidSkillError: Malformed ``SKILL.md``, or a name that is not the directory's.
        UnsafeSkillPathError: A file leaves the directory or is not a regular file.
        SkillTooLargeError: A file or the whole skill is over its limit.
    """
    root = pathlib.Path(skill_dir).resolve()
    reader = SkillReader(root)
    parsed, body = _read_manifest(reader)
    frontmatter = _frontmatter(parsed, f"skill {root.name!r}")
    _checked_name(frontmatter, root)
    scripts: dict[str, models.Script] = {}
    for name, source in reader.read_folder("scripts").items():
        if isinstance(source, bytes):
            logger.warning("Skill %r: skipping script %r, which is not UTF-8.", root.name, name)
            continue
        scripts[name] = models.Script(src=source)
    resources = models.Resources(
        references=reader.read_folder("references"),
        assets=reader.read_folder("assets"),
        scripts=scripts,
    )
    skill = models.Skill(frontmatter=frontmatter, instructions=body, resources=resources)
    skill._uri = root.as_uri()
    return skill


def _skill_dirs(base: pathlib.Path) -> list[pathlib.Path]:
    """The subdirectories of ``base`` holding a manifest; a linked one leaving ``base`` fails."""
    found: list[pathlib.Path] = []
    for entry in sorted(base.iterdir()):
        if not entry.is_dir():
            continue
        if entry.is_symlink():
            resolved = entry.resolve()
            if base not in resolved.parents:
                raise UnsafeSkillPathError(
                    f"Skill directory {entry.name!r} is a symlink pointing outside "
                    f"{str(base)!r}; copy the skill in instead."
                )
        found.append(entry)
    return found


def _load_skills_from_dir(skills_dir: str | pathlib.Path) -> list[models.Skill]:
    """Load every skill in the subdirectories of ``skills_dir`` (sorted by name).

    A subdirectory without ``SKILL.md`` is skipped; an invalid skill fails the whole load.

    Raises:
        SkillNotFoundError: ``skills_dir`` does not exist.
        SkillLoadError: It is not a directory, or a skill in it is invalid or unsafe.
    """
    base = pathlib.Path(skills_dir).resolve()
    if not base.exists():
        raise SkillNotFoundError(f"Skills directory {str(base)!r} does not exist.")
    if not base.is_dir():
        raise InvalidSkillError(f"{str(base)!r} is not a directory.")
    return [
        _load_skill_from_dir(entry)
        for entry in _skill_dirs(base)
        if any((entry / name).exists() for name in _MANIFESTS)
    ]


def _list_skills_in_dir(
    skills_base_path: str | pathlib.Path,
    on_error: Callable[[str, Exception], None] | None = None,
) -> dict[str, models.Frontmatter]:
    """The front matter of each valid skill under ``skills_base_path``, by directory name.

    Only ``SKILL.md`` is read. An invalid skill is logged and skipped, or passed to
    ``on_error(skill_id, error)``, which may raise to stop the listing. A missing base
    directory lists nothing (logged).
    """
    base = pathlib.Path(skills_base_path).resolve()
    if not base.is_dir():
        logger.warning("Skills base path %r is not a directory.", str(base))
        return {}
    skills: dict[str, models.Frontmatter] = {}
    for entry in sorted(base.iterdir()):
        if not entry.is_dir():
            continue
        try:
            if entry.is_symlink() and base not in entry.resolve().parents:
                raise UnsafeSkillPathError(
                    f"Skill directory {entry.name!r} is a symlink pointing outside the base."
                )
            frontmatter = _read_skill_properties(entry)
            _checked_name(frontmatter, entry)
        except (SkillNotFoundError, ValueError) as exc:  # every SkillLoadError is a ValueError
            if on_error is not None:
                on_error(entry.name, exc)
                continue
            logger.warning("Skipping invalid skill %r: %s", entry.name, exc)
            continue
        skills[entry.name] = frontmatter
    return skills


async def _load_skill_from_dir_async(skill_dir: str | pathlib.Path) -> models.Skill:
    """:func:`_load_skill_from_dir` in a worker thread."""
    return await asyncio.to_thread(_load_skill_from_dir, skill_dir)


async def _load_skills_from_dir_async(skills_dir: str | pathlib.Path) -> list[models.Skill]:
    """:func:`_load_skills_from_dir` in a worker thread (one thread for the whole walk)."""
    return await asyncio.to_thread(_load_skills_from_dir, skills_dir)


async def _list_skills_in_dir_async(
    skills_base_path: str | pathlib.Path,
    on_error: Callable[[str, Exception], None] | None = None,
) -> dict[str, models.Frontmatter]:
    """:func:`_list_skills_in_dir` in a worker thread (``on_error`` runs there too)."""
    return await asyncio.to_thread(_list_skills_in_dir, skills_base_path, on_error)
