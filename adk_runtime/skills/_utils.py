"""Loading skills from directories: ``SKILL.md`` (YAML front matter + body) and resources.

A skill directory holds ``SKILL.md`` (or ``skill.md``) and optionally ``references/``,
``assets/`` and ``scripts/``. Its name in the front matter must equal the directory name.
Every file is read through :class:`~adk_runtime.skills._files.SkillReader` (containment,
symlinks, sizes); the front matter is parsed with PyYAML's safe loader, with aliases refused
(an alias "bomb" cannot expand). Nothing in a skill is executed when it is loaded.

A skill can also come as a zip archive held in memory (``SKILL.md`` at its root, as a skill
registry serves it): :func:`_load_skill_from_zip_bytes` reads it without writing anything to
disk, within the same limits, refusing entries that leave the archive, symlink entries and an
archive whose members expand past the limits (a zip bomb).

The ``*_async`` variants run the same work in a worker thread (``asyncio.to_thread``), so the
event loop never waits on the file system.
"""

from __future__ import annotations

import asyncio
import io
import logging
import pathlib
import stat
import zipfile
from collections.abc import Callable
from typing import Any

import yaml
from pydantic import ValidationError

from adk_runtime.skills import models
from adk_runtime.skills._files import (
    MAX_FILE_BYTES,
    MAX_FILES,
    MAX_SKILL_BYTES,
    SkillReader,
    _decoded,
    validate_relative_path,
)
from adk_runtime.skills._gcs import (
    _list_skills_in_gcs_dir,
    _list_skills_in_gcs_dir_async,
    _load_skill_from_gcs_dir,
    _load_skill_from_gcs_dir_async,
)
from adk_runtime.skills.errors import (
    InvalidSkillError,
    SkillNotFoundError,
    SkillTooLargeError,
    UnsafeSkillPathError,
)

__all__ = [
    "_list_skills_in_dir",
    "_list_skills_in_dir_async",
    "_list_skills_in_gcs_dir",
    "_list_skills_in_gcs_dir_async",
    "_load_skill_from_dir",
    "_load_skill_from_dir_async",
    "_load_skill_from_gcs_dir",
    "_load_skill_from_gcs_dir_async",
    "_load_skill_from_zip_bytes",
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
        raise SkillNotFoundError(f"Skill directory {str(skill_dir)!r} does not exist.")
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
        problems.append(f"Unknown frontmatter fields: {unknown}")
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


_FOLDERS = ("references", "assets", "scripts")


def _load_skill_from_zip_bytes(zip_bytes: bytes) -> models.Skill:
    """Load a whole skill from the bytes of a zip archive (``SKILL.md`` at its root).

    Nothing is written to disk. The limits of a skill directory apply (files, bytes per file,
    bytes in all), counted on the sizes the archive declares and again while reading.

    Raises:
        SkillNotFoundError: The archive has no ``SKILL.md`` at its root.
        InvalidSkillError: The archive or its ``SKILL.md`` is malformed.
        UnsafeSkillPathError: An entry leaves the archive (``..``, absolute) or is a symlink.
        SkillTooLargeError: The archive holds too many files or expands past the limits.
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(zip_bytes))
    except (zipfile.BadZipFile, ValueError, EOFError):
        raise InvalidSkillError("The skill archive is not a readable zip file.") from None
    with archive:
        members = _checked_members(archive)
        budget = [MAX_SKILL_BYTES]
        manifest = next((m for name in _MANIFESTS for m in members if m.filename == name), None)
        if manifest is None:
            raise SkillNotFoundError("SKILL.md not found at the root of the skill archive.")
        try:
            text = _read_member(archive, manifest, budget).decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidSkillError("SKILL.md of the skill archive is not UTF-8 text.") from None
        parsed, body = _parse_skill_md_content(text)
        frontmatter = _frontmatter(parsed, "the skill archive")
        folders: dict[str, dict[str, str | bytes]] = {name: {} for name in _FOLDERS}
        for member in members:
            folder, _, rest = member.filename.replace("\\", "/").partition("/")
            if folder not in folders or not rest or "__pycache__" in rest.split("/"):
                continue
            key = validate_relative_path(rest)
            if key in folders[folder]:
                raise InvalidSkillError(f"The skill archive holds {folder}/{key} twice.")
            folders[folder][key] = _decoded(_read_member(archive, member, budget))
    scripts: dict[str, models.Script] = {}
    for name, source in folders["scripts"].items():
        if isinstance(source, bytes):
            logger.warning(
                "Skill %r: skipping script %r, which is not UTF-8.", frontmatter.name, name
            )
            continue
        scripts[name] = models.Script(src=source)
    resources = models.Resources(
        references=folders["references"], assets=folders["assets"], scripts=scripts
    )
    return models.Skill(frontmatter=frontmatter, instructions=body, resources=resources)


def _checked_members(archive: zipfile.ZipFile) -> list[zipfile.ZipInfo]:
    """The archive's files, once every entry's path, kind and declared size is checked."""
    entries = archive.infolist()
    files = [entry for entry in entries if not entry.is_dir()]
    if len(files) > MAX_FILES + len(_MANIFESTS):
        raise SkillTooLargeError(f"The skill archive holds more than {MAX_FILES} files.")
    if sum(entry.file_size for entry in files) > MAX_SKILL_BYTES:
        raise SkillTooLargeError(
            f"The skill archive expands to more than {MAX_SKILL_BYTES} bytes in all."
        )
    for entry in entries:
        if entry.is_dir() and entry.filename.strip("/") in ("", "."):
            continue
        try:
            validate_relative_path(entry.filename)
        except UnsafeSkillPathError:
            raise UnsafeSkillPathError(
                "The skill archive holds an entry leaving it (absolute or with '..')."
            ) from None
        if stat.S_ISLNK(entry.external_attr >> 16):
            raise UnsafeSkillPathError(
                f"The skill archive entry {entry.filename!r} is a symlink; store the file."
            )
        if entry.file_size > MAX_FILE_BYTES:
            raise SkillTooLargeError(
                f"The skill archive entry {entry.filename!r} is larger than the limit of "
                f"{MAX_FILE_BYTES} bytes per file."
            )
    return files


def _read_member(archive: zipfile.ZipFile, member: zipfile.ZipInfo, budget: list[int]) -> bytes:
    """One member's bytes, capped per file and against what the skill may still hold."""
    try:
        with archive.open(member) as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, OSError):
        raise InvalidSkillError(
            f"The skill archive entry {member.filename!r} cannot be read."
        ) from None
    budget[0] -= len(data)
    if len(data) > MAX_FILE_BYTES or budget[0] < 0:
        raise SkillTooLargeError(
            f"The skill archive entry {member.filename!r} expands past the size limits."
        )
    return data
