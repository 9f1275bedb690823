"""Security of the artifact stores: filenames cannot escape, users cannot reach each other.

Runs on every artifact store that can be built from a URL on this branch (``memory://``, and
``file://``, SQLite and PostgreSQL once their stores are registered).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from google.genai import types

from adk_runtime.artifacts import BaseArtifactService, InMemoryArtifactService
from adk_runtime.errors import InputValidationError
from tests import stores

HOSTILE_FILENAMES = ["../escape", "a/../../b", "/etc/passwd", "..", ".", "a\\b", "a\x00b", "a\nb"]
LITERAL_FILENAMES = ["dir/'; DROP TABLE x; --", "]]) redis.call('FLUSHALL') --", "*", "%_", "🦀"]


def _registered() -> set[str]:
    try:
        from adk_runtime.artifacts.registry import supported_schemes
    except ImportError:
        return {"memory"}
    return set(supported_schemes())


def _store_names() -> list[Any]:
    wanted = {"memory": "memory", "file": "file", "sqlite": "sqlite", "postgres": "postgresql"}
    names = [name for name, scheme in wanted.items() if scheme in _registered()]
    marks = {"sqlite": [pytest.mark.sqlite], "postgres": [pytest.mark.postgres]}
    return [pytest.param(name, id=name, marks=marks.get(name, [])) for name in names]


@contextlib.asynccontextmanager
async def _artifact_service(name: str, tmp_path: Path) -> AsyncIterator[BaseArtifactService]:
    if name == "memory":
        service: BaseArtifactService = InMemoryArtifactService()
        yield service
        return
    from adk_runtime.artifacts.registry import artifact_service_from_url

    async with contextlib.AsyncExitStack() as stack:
        if name == "file":
            service = artifact_service_from_url((tmp_path / "artifacts").as_uri())
        elif name == "sqlite":
            service = artifact_service_from_url(f"sqlite+aiosqlite:///{tmp_path / 'a.db'}")
        else:
            store = await stack.enter_async_context(stores.fresh_store("postgres", tmp_path))
            service = artifact_service_from_url(store.url, auto_migrate=True)
        try:
            yield service
        finally:
            await service.close()


def _files_named(root: Path, names: set[str]) -> list[Path]:
    return [path for path in root.rglob("*") if path.name in names]


def _part(data: bytes) -> types.Part:
    return types.Part.from_bytes(data=data, mime_type="application/octet-stream")


@pytest.mark.parametrize("store", _store_names())
async def test_hostile_filenames_are_refused(store: str, tmp_path: Path) -> None:
    async with _artifact_service(store, tmp_path) as service:
        for filename in HOSTILE_FILENAMES:
            with pytest.raises(InputValidationError):
                await service.save_artifact(
                    app_name="a",
                    user_id="u",
                    session_id="s",
                    filename=filename,
                    artifact=_part(b"x"),
                )
        assert await service.list_artifact_keys(app_name="a", user_id="u", session_id="s") == []
    # Nothing was written: no file of those names exists in or around the store.
    assert _files_named(tmp_path, {"escape", "b", "passwd"}) == []


@pytest.mark.parametrize("store", _store_names())
async def test_literal_filenames_round_trip(store: str, tmp_path: Path) -> None:
    async with _artifact_service(store, tmp_path) as service:
        for i, filename in enumerate(LITERAL_FILENAMES):
            await service.save_artifact(
                app_name="a",
                user_id="u",
                session_id="s",
                filename=filename,
                artifact=_part(bytes([i])),
            )
        keys = await service.list_artifact_keys(app_name="a", user_id="u", session_id="s")
        assert sorted(keys) == sorted(LITERAL_FILENAMES)
        for i, filename in enumerate(LITERAL_FILENAMES):
            got = await service.load_artifact(
                app_name="a", user_id="u", session_id="s", filename=filename
            )
            assert got is not None
            assert got.inline_data is not None
            assert got.inline_data.data == bytes([i])


@pytest.mark.parametrize("store", _store_names())
async def test_one_user_never_reaches_another_users_artifacts(store: str, tmp_path: Path) -> None:
    async with _artifact_service(store, tmp_path) as service:
        for filename in ["doc.txt", "user:profile.txt", "dir/'; DROP TABLE x; --"]:
            await service.save_artifact(
                app_name="a",
                user_id="alice",
                session_id="s",
                filename=filename,
                artifact=_part(b"A"),
            )
            for user, sid in [
                ("bob", "s"),
                ("alice", "other"),
                ("*", "s"),
                ("%", "%"),
            ]:
                if filename.startswith("user:") and user == "alice":
                    continue
                got = await service.load_artifact(
                    app_name="a", user_id=user, session_id=sid, filename=filename
                )
                assert got is None, (filename, user, sid)
            # Ids that would climb a directory are refused, not resolved.
            for user, sid in [("..", "s"), ("bob/../alice", "s"), ("alice", "../s")]:
                with pytest.raises(InputValidationError):
                    await service.load_artifact(
                        app_name="a", user_id=user, session_id=sid, filename=filename
                    )
        assert await service.list_artifact_keys(app_name="a", user_id="bob", session_id="s") == []
        shared = await service.list_artifact_keys(app_name="a", user_id="alice", session_id="x")
        assert shared == ["user:profile.txt"]
