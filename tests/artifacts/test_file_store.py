"""What only the file store promises: processes, failed writes, the loop, the layout."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
from blockbuster import BlockBuster
from google.genai import types

from adk_runtime.artifacts import FileArtifactService, artifact_service_from_url
from adk_runtime.artifacts import file as file_store
from adk_runtime.errors import ConfigurationError

pytestmark = pytest.mark.file

WHERE = {"app_name": "app", "user_id": "alice", "session_id": "s1"}

_WORKER = """
import asyncio, sys
from google.genai import types
from adk_runtime.artifacts import FileArtifactService

KEY = {"app_name": "app", "user_id": "alice", "session_id": "s1", "filename": "shared.log"}

async def main(root, tag, count):
    service = FileArtifactService(root)
    for i in range(count):
        if tag == "delete":
            await service.delete_artifact(**KEY)
            continue
        part = types.Part(inline_data=types.Blob(data=f"{tag}-{i}".encode(), mime_type="text/x"))
        print(await service.save_artifact(artifact=part, **KEY), flush=True)

asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
"""


async def _workers(root: Path, tags: list[str], count: int) -> list[int]:
    procs = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            _WORKER,
            str(root),
            tag,
            str(count),
            stdout=asyncio.subprocess.PIPE,
        )
        for tag in tags
    ]
    outputs = [await proc.communicate() for proc in procs]
    assert [proc.returncode for proc in procs] == [0] * len(tags)
    return [int(line) for out, _ in outputs for line in out.split()]


def files_under(path: Path) -> list[Path]:
    return sorted(path.rglob("*"))


def part(data: bytes) -> types.Part:
    return types.Part(inline_data=types.Blob(data=data, mime_type="application/octet-stream"))


async def test_two_processes_get_distinct_versions(tmp_path: Path) -> None:
    count = 20
    procs = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            _WORKER,
            str(tmp_path),
            tag,
            str(count),
            stdout=asyncio.subprocess.PIPE,
        )
        for tag in ("p", "q")
    ]
    outputs = [await proc.communicate() for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0]
    versions = [int(line) for out, _ in outputs for line in out.split()]
    assert sorted(versions) == list(range(2 * count))
    service = FileArtifactService(tmp_path)
    contents = set()
    for version in versions:
        loaded = await service.load_artifact(filename="shared.log", version=version, **WHERE)
        assert loaded is not None
        assert loaded.inline_data is not None
        contents.add(loaded.inline_data.data)
    assert contents == {f"{tag}-{i}".encode() for tag in "pq" for i in range(count)}


async def test_deletes_racing_two_saving_processes_never_reuse_a_version(tmp_path: Path) -> None:
    versions = await _workers(tmp_path, ["p", "q", "delete"], 40)
    assert len(versions) == 80
    assert len(set(versions)) == 80
    service = FileArtifactService(tmp_path)
    for version in await service.list_versions(filename="shared.log", **WHERE):
        loaded = await service.load_artifact(filename="shared.log", version=version, **WHERE)
        assert loaded is not None


async def test_a_stale_scan_never_claims_a_deleted_number(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The interleaving "scan, then another process saves and deletes, then link" made
    # deterministic: the saver's scan sees nothing, as if it ran before versions 0 and 1.
    service = FileArtifactService(tmp_path)
    for data in (b"0", b"1"):
        await service.save_artifact(filename="a.bin", artifact=part(data), **WHERE)
    await service.delete_artifact(filename="a.bin", **WHERE)
    monkeypatch.setattr(file_store, "_numbers", lambda directory: {})
    assert await service.save_artifact(filename="a.bin", artifact=part(b"2"), **WHERE) == 2
    monkeypatch.undo()
    assert await service.list_versions(filename="a.bin", **WHERE) == [2]


async def test_failed_claim_publishes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = FileArtifactService(tmp_path)

    def full_disk(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(os, "link", full_disk)
        with pytest.raises(OSError, match="No space"):
            await service.save_artifact(filename="a.bin", artifact=part(b"x"), **WHERE)
    assert await service.list_artifact_keys(**WHERE) == []
    assert await service.load_artifact(filename="a.bin", **WHERE) is None
    assert await service.save_artifact(filename="a.bin", artifact=part(b"y"), **WHERE) == 0
    leftovers = [p.name for p in files_under(tmp_path) if p.name.startswith(".tmp-")]
    assert leftovers == []


async def test_failed_publish_publishes_nothing_and_retires_the_number(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = FileArtifactService(tmp_path)
    assert await service.save_artifact(filename="a.bin", artifact=part(b"0"), **WHERE) == 0

    def crash(*args: object, **kwargs: object) -> None:
        raise OSError(5, "I/O error")

    with monkeypatch.context() as patch:
        patch.setattr(os, "replace", crash)
        with pytest.raises(OSError, match="I/O error"):
            await service.save_artifact(filename="a.bin", artifact=part(b"1"), **WHERE)
    assert await service.list_versions(filename="a.bin", **WHERE) == [0]
    loaded = await service.load_artifact(filename="a.bin", **WHERE)
    assert loaded is not None
    assert loaded.inline_data is not None
    assert loaded.inline_data.data == b"0"
    assert await service.save_artifact(filename="a.bin", artifact=part(b"2"), **WHERE) == 2


async def test_file_work_never_blocks_the_loop(tmp_path: Path, blockbuster: BlockBuster) -> None:
    service = FileArtifactService(tmp_path)
    await service.save_artifact(filename="a.bin", artifact=part(b"x" * 10_000), **WHERE)
    assert await service.load_artifact(filename="a.bin", **WHERE) is not None
    assert await service.list_artifact_keys(**WHERE) == ["a.bin"]
    await service.delete_artifact(filename="a.bin", **WHERE)


async def test_every_file_stays_under_the_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    service = FileArtifactService(root)
    names = ["...", "a/b/c.txt", "user:x y%2F..", "~tilde", "%2e%2e", "ünïcødé/名前.txt"]
    long_name = "長" * 200  # too long for one directory name: stored under a hash
    for name in [*names, long_name]:
        await service.save_artifact(filename=name, artifact=part(name.encode()), **WHERE)
    assert await service.list_artifact_keys(**WHERE) == sorted([*names, long_name])
    for path in files_under(tmp_path):
        assert path.is_relative_to(root)
        assert ".." not in path.relative_to(root).parts
    loaded = await service.load_artifact(filename=long_name, **WHERE)
    assert loaded is not None
    assert loaded.inline_data is not None
    assert loaded.inline_data.data == long_name.encode()


async def test_from_url(tmp_path: Path) -> None:
    service = artifact_service_from_url(f"file://{tmp_path}/store")
    assert isinstance(service, FileArtifactService)
    assert service.root_dir == tmp_path / "store"
    await service.save_artifact(filename="a.bin", artifact=part(b"x"), **WHERE)
    assert (tmp_path / "store").is_dir()
    info = await service.get_artifact_version(filename="a.bin", **WHERE)
    assert info is not None
    assert info.canonical_uri.startswith(f"file://{tmp_path}/store/")


async def test_a_symlinked_folder_under_the_root_is_refused(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    outside.mkdir()
    service = FileArtifactService(root)
    await service.save_artifact(filename="a.bin", artifact=part(b"inside"), **WHERE)
    app_dir = next(root.iterdir())  # <root>/<app>
    user_dir = next(app_dir.iterdir())
    # An operator (or an attacker with shell access) swaps the user folder for a link.
    moved = tmp_path / "moved"
    user_dir.rename(moved)
    user_dir.symlink_to(outside, target_is_directory=True)
    with pytest.raises(ConfigurationError, match="symbolic link"):
        await service.save_artifact(filename="b.bin", artifact=part(b"escape"), **WHERE)
    with pytest.raises(ConfigurationError, match="symbolic link"):
        await service.load_artifact(filename="a.bin", **WHERE)
    with pytest.raises(ConfigurationError, match="symbolic link"):
        await service.list_artifact_keys(**WHERE)
    assert list(outside.iterdir()) == []  # nothing landed outside the root


async def test_a_symlinked_version_file_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"outside the root")
    service = FileArtifactService(root)
    await service.save_artifact(filename="a.bin", artifact=part(b"inside"), **WHERE)
    version_file = next(p for p in files_under(root) if p.name == "0.bin")
    version_file.unlink()
    version_file.symlink_to(secret)
    with pytest.raises(ConfigurationError, match="symbolic link"):
        await service.load_artifact(filename="a.bin", **WHERE)


async def test_a_root_that_is_itself_a_link_is_fine(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    service = FileArtifactService(link)
    await service.save_artifact(filename="a.bin", artifact=part(b"x"), **WHERE)
    loaded = await service.load_artifact(filename="a.bin", **WHERE)
    assert loaded is not None
    assert loaded.inline_data is not None
    assert loaded.inline_data.data == b"x"
