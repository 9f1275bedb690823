"""Reading an untrusted skill directory: containment, symlinks, special files and sizes.

A skill directory may come from anywhere, so every file is read through :class:`SkillReader`:

- a path that resolves outside the skill directory (``..``, an absolute path, or a symlink
  whose target is outside) is refused with :class:`UnsafeSkillPathError`; a symlink that
  stays inside is read as the file it points to;
- anything that is not a regular file (a FIFO, a device, a socket) is refused, so reading
  never blocks or touches hardware;
- each file is capped at :data:`MAX_FILE_BYTES` and the whole skill at
  :data:`MAX_SKILL_BYTES` and :data:`MAX_FILES` files (:class:`SkillTooLargeError`);
- files are opened by their resolved path with ``O_NOFOLLOW``, so a symlink swapped in after
  the check is refused rather than followed.

Nothing is ever executed: files are read as bytes and decoded.
"""

from __future__ import annotations

import os
import pathlib
import stat

from adk_runtime.skills.errors import SkillTooLargeError, UnsafeSkillPathError

__all__ = [
    "MAX_FILES",
    "MAX_FILE_BYTES",
    "MAX_SKILL_BYTES",
    "SkillReader",
    "validate_relative_path",
]

MAX_FILE_BYTES = 4 * 1024 * 1024
"""The largest file a skill may hold (``SKILL.md`` or a resource), in bytes."""
MAX_SKILL_BYTES = 32 * 1024 * 1024
"""The most bytes one skill may hold in all."""
MAX_FILES = 2000
"""The most resource files one skill may hold."""

_SKIPPED_PARTS = frozenset({"__pycache__"})
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def validate_relative_path(path: str) -> str:
    r"""Normalize a resource path given relative to a skill folder; refuse one that escapes.

    Args:
        path: The path, with ``/`` or ``\\`` separators.

    Returns:
        The path in POSIX form.

    Raises:
        UnsafeSkillPathError: The path is empty, absolute, has a drive, or contains ``..``.
    """
    posix = pathlib.PurePosixPath(path.replace("\\", "/"))
    windows = pathlib.PureWindowsPath(path)
    normalized = posix.as_posix()
    if (
        normalized in ("", ".")
        or posix.is_absolute()
        or ".." in posix.parts
        or windows.is_absolute()
        or bool(windows.drive)
    ):
        raise UnsafeSkillPathError(
            "A skill resource path must be relative to its folder and stay inside it."
        )
    return normalized


class SkillReader:
    """Reads the files of one skill directory within its limits (see the module docstring).

    Attributes:
        root: The skill directory, resolved.
    """

    def __init__(self, root: pathlib.Path) -> None:
        """Read files under ``root`` (already resolved by the caller)."""
        self.root = root
        self._bytes_read = 0
        self._files_read = 0

    def inside(self, path: pathlib.Path) -> pathlib.Path:
        """``path`` resolved, when it stays inside the skill directory.

        Raises:
            UnsafeSkillPathError: It resolves outside the skill directory.
        """
        resolved = path.resolve()
        if resolved != self.root and self.root not in resolved.parents:
            raise UnsafeSkillPathError(
                f"Skill {self.root.name!r}: {self._relative(path)!r} points outside the "
                "skill directory (a symlink or '..'); remove it or copy the file in."
            )
        return resolved

    def read(self, path: pathlib.Path) -> bytes:
        """The bytes of the regular file ``path``, within the limits.

        Raises:
            UnsafeSkillPathError: It leaves the skill directory or is not a regular file.
            SkillTooLargeError: It, or the skill so far, is over a limit.
        """
        resolved = self.inside(path)
        relative = self._relative(path)
        try:
            fd = os.open(resolved, os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
        except OSError as exc:
            raise UnsafeSkillPathError(
                f"Skill {self.root.name!r}: {relative!r} cannot be opened as a plain file "
                f"({type(exc).__name__})."
            ) from exc
        with os.fdopen(fd, "rb") as file:
            if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                raise UnsafeSkillPathError(
                    f"Skill {self.root.name!r}: {relative!r} is not a regular file."
                )
            data = file.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise SkillTooLargeError(
                f"Skill {self.root.name!r}: {relative!r} is larger than the limit of "
                f"{MAX_FILE_BYTES} bytes per file."
            )
        self._bytes_read += len(data)
        if self._bytes_read > MAX_SKILL_BYTES:
            raise SkillTooLargeError(
                f"Skill {self.root.name!r} holds more than {MAX_SKILL_BYTES} bytes in all."
            )
        return data

    def read_folder(self, name: str) -> dict[str, str | bytes]:
        """Every file under the folder ``name`` (``references``...), by POSIX relative path.

        UTF-8 files are ``str``, other files ``bytes``. ``__pycache__`` is skipped. A missing
        folder is empty.
        """
        folder = self.root / name
        if not folder.is_dir():
            if folder.is_symlink() or folder.exists():
                self.inside(folder)  # a symlink leaving the skill is refused, not ignored
            return {}
        self.inside(folder)
        files: dict[str, str | bytes] = {}
        for current, dirs, names in os.walk(folder, followlinks=False):
            here = pathlib.Path(current)
            for directory in list(dirs):
                if directory in _SKIPPED_PARTS or (here / directory).is_symlink():
                    # A linked folder is not walked; one that leaves the skill is refused.
                    self.inside(here / directory)
                    dirs.remove(directory)
            for file_name in sorted(names):
                path = here / file_name
                self._count()
                data = self.read(path)
                key = validate_relative_path(path.relative_to(folder).as_posix())
                files[key] = _decoded(data)
            dirs.sort()
        return files

    def _count(self) -> None:
        self._files_read += 1
        if self._files_read > MAX_FILES:
            raise SkillTooLargeError(
                f"Skill {self.root.name!r} holds more than {MAX_FILES} resource files."
            )

    def _relative(self, path: pathlib.Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return path.name


def _decoded(data: bytes) -> str | bytes:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data
