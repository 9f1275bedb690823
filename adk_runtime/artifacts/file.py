"""FileArtifactService: versioned artifacts as files under one root directory.

Layout (every segment is percent-encoded, or ``#<sha256>`` when it would be too long)::

    <root>/<app>/<user>/user/<filename>/            the user's (``user:``) artifacts
    <root>/<app>/<user>/sessions/<session>/<filename>/
        <n>.bin    the bytes of version n (its presence claims the number n)
        <n>.json   its metadata; a version exists once this file exists (published last)
        <n>.gone   tombstone of a deleted version: n is never handed out again
        name       the real filename, for a ``#<sha256>`` directory

A save writes the bytes to a temporary file, fsyncs it, then hard-links it to the first free
``<n>.bin`` (the link fails if the name exists, so two writers, threads or processes, never
get the same number), then publishes ``<n>.json`` by an atomic rename. A save that fails
before the rename publishes nothing. All file work runs in a worker thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hashlib
import json
import os
import re
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from google.genai import types
from pydantic import Field

from adk_runtime._url_registry import check_query_options
from adk_runtime.artifacts._store import ArtifactRecord, StoredArtifactService
from adk_runtime.artifacts._validation import ArtifactKey
from adk_runtime.artifacts.base import ArtifactVersion
from adk_runtime.errors import AlreadyExistsError, ConfigurationError, redact_url

__all__ = ["FileArtifactService", "FileArtifactVersion"]


class FileArtifactVersion(ArtifactVersion):
    """A file store's version description: also the artifact's filename and display name.

    Attributes:
        file_name: The filename the artifact was saved under.
        display_name: The part's ``inline_data.display_name``, when it had one.
    """

    file_name: str = Field(description="The filename the artifact was saved under.")
    display_name: str | None = Field(
        default=None, description="The part's inline_data.display_name, when it had one."
    )


_MAX_SEGMENT = 200  # bytes; file systems allow 255
_VERSION_FILE = re.compile(r"^(\d{1,19})\.(bin|json|gone)$")


def _segment(name: str) -> str:
    encoded = quote(name, safe="")
    if len(encoded) <= _MAX_SEGMENT:
        return encoded
    return "#" + hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# fdatasync flushes the data and the metadata needed to read it back (the size), not times.
_sync_data = getattr(os, "fdatasync", os.fsync)


def _write_durably(path: Path, data: bytes) -> None:
    with open(path, "xb") as handle:
        handle.write(data)
        handle.flush()
        _sync_data(handle.fileno())


def _read_file(path: Path) -> bytes:
    """Read ``path``, refusing a symbolic link (it could point outside the root)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _link_error(path) from None
        raise
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


def _touch(path: Path) -> None:
    """Create ``path`` if missing, never through a symbolic link."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _link_error(path) from None
        raise
    os.close(fd)


def _link_error(path: Path) -> ConfigurationError:
    return ConfigurationError(
        f"{path.name!r} in the artifact store is a symbolic link; the file store refuses "
        "links under its root (they could lead outside it). Remove the link."
    )


def _numbers(directory: Path) -> dict[int, set[str]]:
    """Map each version number in ``directory`` to the kinds of files it has."""
    found: dict[int, set[str]] = {}
    with contextlib.suppress(FileNotFoundError), os.scandir(directory) as entries:
        for entry in entries:
            match = _VERSION_FILE.match(entry.name)
            if match:
                found.setdefault(int(match.group(1)), set()).add(match.group(2))
    return found


def _published(directory: Path) -> list[int]:
    return sorted(n for n, kinds in _numbers(directory).items() if "json" in kinds)


def _read_meta(directory: Path, version: int) -> dict[str, Any] | None:
    try:
        text = _read_file(directory / f"{version}.json").decode("utf-8")
    except FileNotFoundError:
        return None
    meta: dict[str, Any] = json.loads(text)
    return meta


def _record(meta: dict[str, Any], version: int, data: bytes = b"") -> ArtifactRecord:
    return ArtifactRecord(
        part_json=meta["part"],
        data=data,
        mime_type=meta.get("mime_type"),
        size=meta["size"],
        create_time=meta["create_time"],
        metadata_json=meta.get("custom_metadata", "{}"),
        version=version,
    )


class FileArtifactService(StoredArtifactService):
    """Artifacts as files under ``root_dir``; safe for many threads and processes."""

    uri_scheme = "file"

    def _describe(self, key: ArtifactKey, record: ArtifactRecord) -> FileArtifactVersion:
        """The version as a :class:`FileArtifactVersion` (its filename and display name)."""
        part = types.Part.model_validate_json(record.part_json)
        display = part.inline_data.display_name if part.inline_data is not None else None
        return FileArtifactVersion(
            **record.info(self._uri(key, record.version)).model_dump(),
            file_name=key.filename,
            display_name=display,
        )

    def __init__(self, root_dir: str | os.PathLike[str]) -> None:
        """Use (and create on first save) the directory ``root_dir``."""
        self.root_dir = Path(root_dir).absolute()

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> FileArtifactService:
        """Build the store for ``file:///absolute/dir`` (or ``file://./relative/dir``).

        It takes no options: a query is refused.
        """
        check_query_options(url, (), what="file://")
        parts = urlsplit(url)
        if parts.netloc in ("", "localhost"):
            path = unquote(parts.path)
        elif parts.netloc in (".", ".."):
            path = unquote(parts.netloc + parts.path)
        else:
            raise ConfigurationError(
                f"{redact_url(url)!r} names a remote host; a file store is a local directory "
                "(file:///absolute/path)."
            )
        if not path:
            raise ConfigurationError(
                f"{redact_url(url)!r} names no directory; use file:///absolute/path."
            )
        return cls(path, **kwargs)

    # -- paths ---------------------------------------------------------------------------

    def _path(self, key: ArtifactKey) -> Path:
        base = self._scope_dir(key.app_name, key.user_id, key.scope or None, user=key.is_user)
        return base / _segment(key.filename)

    def _dir(self, key: ArtifactKey) -> Path:
        """The artifact's folder, checked (file work: call it on the worker thread)."""
        return self._inside(self._path(key))

    def _inside(self, path: Path) -> Path:
        """Return ``path`` if no existing folder between the root and it is a symbolic link.

        Raises:
            ConfigurationError: A folder on the way is a link (it could lead outside the
                root); nothing is read or written.
        """
        root = os.path.realpath(self.root_dir)
        expected = os.path.join(root, os.path.relpath(path, self.root_dir))
        if os.path.realpath(path) != expected:
            return self._refuse(path)
        return path

    def _refuse(self, path: Path) -> Path:
        walked = self.root_dir
        for part in path.relative_to(self.root_dir).parts:
            walked = walked / part
            if walked.is_symlink():
                raise _link_error(walked)
        raise _link_error(path)

    def _scope_dir(
        self, app_name: str, user_id: str, session_id: str | None, *, user: bool
    ) -> Path:
        base = self.root_dir / _segment(app_name) / _segment(user_id)
        if user or session_id is None:
            return base / "user"
        return base / "sessions" / _segment(session_id)

    def _uri(self, key: ArtifactKey, version: int) -> str:
        return (self._path(key) / f"{version}.bin").as_uri()

    # -- hooks ---------------------------------------------------------------------------

    async def _save(self, key: ArtifactKey, record: ArtifactRecord) -> int:
        return await asyncio.to_thread(self._save_sync, key, record)

    async def _load(self, key: ArtifactKey, version: int | None) -> ArtifactRecord | None:
        return await asyncio.to_thread(self._load_sync, key, version)

    async def _versions(self, key: ArtifactKey) -> list[ArtifactRecord]:
        return await asyncio.to_thread(self._versions_sync, key)

    async def _delete(self, key: ArtifactKey) -> None:
        await asyncio.to_thread(self._delete_sync, key)

    async def _put_versions(self, key: ArtifactKey, records: list[ArtifactRecord]) -> None:
        await asyncio.to_thread(self._put_versions_sync, key, records)

    async def _list_keys(self, app_name: str, user_id: str, session_id: str | None) -> list[str]:
        return await asyncio.to_thread(self._list_keys_sync, app_name, user_id, session_id)

    # -- file work (worker thread) -------------------------------------------------------

    def _open_dir(self, key: ArtifactKey) -> Path:
        """The artifact's folder, made if missing (and its ``name`` file for a hashed one)."""
        directory = self._dir(key)
        directory.mkdir(parents=True, exist_ok=True)
        self._inside(directory)  # made between the check and mkdir? still refused
        if directory.name.startswith("#") and not (directory / "name").exists():
            self._publish(directory, "name", key.filename.encode("utf-8"))
        return directory

    def _save_sync(self, key: ArtifactKey, record: ArtifactRecord) -> int:
        directory = self._open_dir(key)
        temp = directory / f".tmp-{uuid.uuid4().hex}"
        try:
            _write_durably(temp, record.data)
            version = self._claim(directory, temp)
            self._publish_meta(directory, version, record)
        finally:
            temp.unlink(missing_ok=True)
        return version

    def _put_versions_sync(self, key: ArtifactKey, records: list[ArtifactRecord]) -> None:
        directory = self._open_dir(key)
        if _numbers(directory):
            raise AlreadyExistsError(f"Artifact {key.filename!r} already has versions.")
        for record in records:
            temp = directory / f".tmp-{uuid.uuid4().hex}"
            try:
                _write_durably(temp, record.data)
                try:
                    os.link(temp, directory / f"{record.version}.bin")
                except FileExistsError:  # a save raced the copy: it keeps its number
                    raise AlreadyExistsError(
                        f"Artifact {key.filename!r} already has versions."
                    ) from None
                self._publish_meta(directory, record.version, record)
            finally:
                temp.unlink(missing_ok=True)

    def _publish_meta(self, directory: Path, version: int, record: ArtifactRecord) -> None:
        meta = {
            "part": record.part_json,
            "mime_type": record.mime_type,
            "size": record.size,
            "create_time": record.create_time,
            "custom_metadata": record.metadata_json,
        }
        self._publish(directory, f"{version}.json", json.dumps(meta).encode("utf-8"))

    @staticmethod
    def _claim(directory: Path, temp: Path) -> int:
        """Link ``temp`` to the first free ``<n>.bin`` and return n."""
        taken = _numbers(directory)
        version = max(taken, default=-1) + 1
        while True:
            try:
                os.link(temp, directory / f"{version}.bin")
            except FileExistsError:
                version += 1
                continue
            if not (directory / f"{version}.gone").exists():
                return version
            # Deleted between our scan and our link: the number stays retired.
            (directory / f"{version}.bin").unlink(missing_ok=True)
            version += 1

    @staticmethod
    def _publish(directory: Path, name: str, data: bytes) -> None:
        temp = directory / f".tmp-{uuid.uuid4().hex}"
        try:
            _write_durably(temp, data)
            os.replace(temp, directory / name)
            _fsync_dir(directory)
        finally:
            temp.unlink(missing_ok=True)

    def _load_sync(self, key: ArtifactKey, version: int | None) -> ArtifactRecord | None:
        directory = self._dir(key)
        if version is None:
            published = _published(directory)
            if not published:
                return None
            version = published[-1]
        meta = _read_meta(directory, version)
        if meta is None:
            return None
        try:
            data = _read_file(directory / f"{version}.bin")
        except FileNotFoundError:  # deleted while we read
            return None
        return _record(meta, version, data)

    def _versions_sync(self, key: ArtifactKey) -> list[ArtifactRecord]:
        directory = self._dir(key)
        records = []
        for version in _published(directory):
            meta = _read_meta(directory, version)
            if meta is not None:
                records.append(_record(meta, version))
        return records

    def _delete_sync(self, key: ArtifactKey) -> None:
        directory = self._dir(key)
        for version in _published(directory):
            # Retire the number first, then unpublish, then drop the bytes.
            _touch(directory / f"{version}.gone")
            (directory / f"{version}.json").unlink(missing_ok=True)
            (directory / f"{version}.bin").unlink(missing_ok=True)
        if directory.exists():
            _fsync_dir(directory)

    def _list_keys_sync(self, app_name: str, user_id: str, session_id: str | None) -> list[str]:
        scopes = [self._inside(self._scope_dir(app_name, user_id, None, user=True))]
        if session_id is not None:
            scopes.append(self._inside(self._scope_dir(app_name, user_id, session_id, user=False)))
        names = []
        for scope in scopes:
            with contextlib.suppress(FileNotFoundError), os.scandir(scope) as entries:
                for entry in entries:
                    if entry.is_symlink():
                        continue  # a link could lead outside the root: never followed
                    name = self._name_of(Path(entry.path))
                    if name is not None and _published(Path(entry.path)):
                        names.append(name)
        return names

    @staticmethod
    def _name_of(directory: Path) -> str | None:
        if not directory.name.startswith("#"):
            return unquote(directory.name)
        try:
            return _read_file(directory / "name").decode("utf-8")
        except FileNotFoundError:
            return None
