"""The artifact contract, on every store (memory, file, sqlite, postgres, spanner)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from blockbuster import BlockBuster
from google.genai import types

from adk_runtime.artifacts import BaseArtifactService
from adk_runtime.errors import InputValidationError

APP, USER, SESSION = "app", "alice", "s1"


def blob(data: bytes, mime: str = "application/octet-stream") -> types.Part:
    return types.Part(inline_data=types.Blob(data=data, mime_type=mime))


async def save(service: BaseArtifactService, filename: str, data: bytes, **key: Any) -> int:
    where = {"app_name": APP, "user_id": USER, "session_id": SESSION, **key}
    return await service.save_artifact(filename=filename, artifact=blob(data), **where)


async def load(
    service: BaseArtifactService, filename: str, version: int | None = None, **key: Any
) -> bytes | None:
    where = {"app_name": APP, "user_id": USER, "session_id": SESSION, **key}
    part = await service.load_artifact(filename=filename, version=version, **where)
    if part is None:
        return None
    assert part.inline_data is not None
    return part.inline_data.data


async def test_versions_start_at_zero_and_load_by_version(
    artifact_service: BaseArtifactService,
) -> None:
    assert [await save(artifact_service, "a.bin", bytes([i])) for i in range(3)] == [0, 1, 2]
    assert await load(artifact_service, "a.bin") == b"\x02"
    assert await load(artifact_service, "a.bin", 0) == b"\x00"
    assert await load(artifact_service, "a.bin", 1) == b"\x01"
    versions = await artifact_service.list_versions(
        app_name=APP, user_id=USER, session_id=SESSION, filename="a.bin"
    )
    assert versions == [0, 1, 2]


async def test_missing_artifacts_and_versions_are_none(
    artifact_service: BaseArtifactService,
) -> None:
    assert await load(artifact_service, "nothing.txt") is None
    await save(artifact_service, "a.bin", b"x")
    assert await load(artifact_service, "a.bin", 7) is None
    assert await load(artifact_service, "a.bin", session_id="other") is None
    assert (
        await artifact_service.get_artifact_version(
            app_name=APP, user_id=USER, session_id=SESSION, filename="a.bin", version=7
        )
        is None
    )
    assert (
        await artifact_service.list_versions(
            app_name=APP, user_id=USER, session_id=SESSION, filename="nothing.txt"
        )
        == []
    )


async def test_listing_is_sorted_and_includes_user_names(
    artifact_service: BaseArtifactService,
) -> None:
    for name in ["zeta.txt", "user:profile.json", "alpha/b.txt", "Beta.txt"]:
        await save(artifact_service, name, b"x")
    await save(artifact_service, "other-session.txt", b"x", session_id="s2")
    keys = await artifact_service.list_artifact_keys(app_name=APP, user_id=USER, session_id=SESSION)
    assert keys == sorted(["zeta.txt", "user:profile.json", "alpha/b.txt", "Beta.txt"])
    user_only = await artifact_service.list_artifact_keys(app_name=APP, user_id=USER)
    assert user_only == ["user:profile.json"]


async def test_user_scope_is_shared_across_sessions(artifact_service: BaseArtifactService) -> None:
    assert await save(artifact_service, "user:notes", b"one", session_id="s1") == 0
    assert await save(artifact_service, "user:notes", b"two", session_id="s2") == 1
    assert await load(artifact_service, "user:notes", session_id="s3") == b"two"
    assert await load(artifact_service, "user:notes", 0, session_id=None) == b"one"
    assert "user:notes" in await artifact_service.list_artifact_keys(
        app_name=APP, user_id=USER, session_id="s9"
    )


async def test_session_artifact_needs_a_session_id(artifact_service: BaseArtifactService) -> None:
    with pytest.raises(InputValidationError):
        await save(artifact_service, "plain.txt", b"x", session_id=None)


async def test_users_and_apps_are_isolated(artifact_service: BaseArtifactService) -> None:
    await save(artifact_service, "user:secret", b"alice")
    await save(artifact_service, "report.txt", b"alice")
    for other in [{"user_id": "bob"}, {"app_name": "other-app"}]:
        assert await load(artifact_service, "user:secret", **other) is None
        assert await load(artifact_service, "report.txt", **other) is None
        where = {"app_name": APP, "user_id": USER, "session_id": SESSION, **other}
        assert await artifact_service.list_artifact_keys(**where) == []
        assert await save(artifact_service, "report.txt", b"other", **other) == 0
    assert await load(artifact_service, "report.txt") == b"alice"


async def test_delete_then_save_never_reuses_a_version(
    artifact_service: BaseArtifactService,
) -> None:
    await save(artifact_service, "a.txt", b"0")
    await save(artifact_service, "a.txt", b"1")
    where = {"app_name": APP, "user_id": USER, "session_id": SESSION, "filename": "a.txt"}
    await artifact_service.delete_artifact(**where)
    assert await load(artifact_service, "a.txt") is None
    assert await load(artifact_service, "a.txt", 1) is None
    assert await artifact_service.list_versions(**where) == []
    assert "a.txt" not in await artifact_service.list_artifact_keys(
        app_name=APP, user_id=USER, session_id=SESSION
    )
    assert await save(artifact_service, "a.txt", b"new") == 2
    assert await load(artifact_service, "a.txt", 1) is None
    assert await artifact_service.list_versions(**where) == [2]
    await artifact_service.delete_artifact(**where)  # deleting twice is fine
    await artifact_service.delete_artifact(**{**where, "filename": "never-saved"})


async def test_concurrent_saves_get_distinct_versions(
    artifact_service: BaseArtifactService,
) -> None:
    count = 25
    versions = await asyncio.gather(
        *(save(artifact_service, "race.bin", i.to_bytes(2, "big")) for i in range(count))
    )
    assert sorted(versions) == list(range(count))
    for i, version in enumerate(versions):
        assert await load(artifact_service, "race.bin", version) == i.to_bytes(2, "big")


async def test_binary_round_trip_keeps_bytes_and_mime_type(
    artifact_service: BaseArtifactService,
) -> None:
    data = bytes(range(256)) * 5 + b"\x00\xff\x00"
    part = types.Part(
        inline_data=types.Blob(data=data, mime_type="image/png", display_name="pic.png")
    )
    where = {"app_name": APP, "user_id": USER, "session_id": SESSION}
    await artifact_service.save_artifact(filename="pic.png", artifact=part, **where)
    loaded = await artifact_service.load_artifact(filename="pic.png", **where)
    assert loaded is not None
    assert loaded.inline_data is not None
    assert loaded.inline_data.data == data
    assert loaded.inline_data.mime_type == "image/png"
    assert loaded.inline_data.display_name == "pic.png"
    await artifact_service.save_artifact(
        filename="empty.bin", artifact=blob(b"", "application/x-empty"), **where
    )
    assert await load(artifact_service, "empty.bin") == b""


async def test_text_and_dict_parts_and_metadata(artifact_service: BaseArtifactService) -> None:
    where = {"app_name": APP, "user_id": USER, "session_id": SESSION}
    await artifact_service.save_artifact(
        filename="note.txt",
        artifact=types.Part(text="héllo ✓"),
        custom_metadata={"source": "test", "n": 1},
        **where,
    )
    await artifact_service.save_artifact(
        filename="note.txt",
        artifact={"inlineData": {"data": "AAE=", "mimeType": "application/pdf"}},
        **where,
    )
    first = await artifact_service.load_artifact(filename="note.txt", version=0, **where)
    assert first is not None
    assert first.text == "héllo ✓"
    assert await load(artifact_service, "note.txt") == b"\x00\x01"
    infos = await artifact_service.list_artifact_versions(filename="note.txt", **where)
    assert [(i.version, i.mime_type) for i in infos] == [(0, "text/plain"), (1, "application/pdf")]
    assert infos[0].custom_metadata == {"source": "test", "n": 1}
    assert infos[1].create_time >= infos[0].create_time > 0
    latest = await artifact_service.get_artifact_version(filename="note.txt", **where)
    assert latest is not None
    assert latest.version == 1


BAD_FILENAMES = [
    "../escape",
    "a/../../escape",
    "/etc/passwd",
    "..",
    ".",
    "",
    "a//b",
    "dir/",
    "a\\b",
    "x\x00y",
    "line\nbreak",
    "user:",
    "user:../escape",
    "user:/abs",
    "x" * 256,
    b"bytes-name",
]
BAD_IDS = [
    "..",
    ".",
    "../x",
    "a/../b",
    "a\\..\\b",
    "/abs",
    "\\abs",
    "C:x",
    "a/users/b",
    "",
    "nul\x00",
    "x" * 129,
    None,
    7,
]


async def test_bad_filenames_are_rejected_and_write_nothing(
    artifact_service: BaseArtifactService,
) -> None:
    where = {"app_name": APP, "user_id": USER, "session_id": SESSION}
    for filename in BAD_FILENAMES:
        with pytest.raises(InputValidationError):
            await save(artifact_service, filename, b"x")
        with pytest.raises(InputValidationError):
            await load(artifact_service, filename)
        with pytest.raises(InputValidationError):
            await artifact_service.delete_artifact(filename=filename, **where)
        with pytest.raises(InputValidationError):
            await artifact_service.list_versions(filename=filename, **where)
    assert await artifact_service.list_artifact_keys(**where) == []


async def test_namespaced_ids_are_kept_apart_from_each_other_and_their_prefixes(
    artifact_service: BaseArtifactService,
) -> None:
    # ids that the session stores accept and google-adk allows: "group/user", "DOMAIN\\user"
    users = ["group/alice", "group", "group%2Falice", "DOMAIN\\alice", "DOMAIN"]
    for index, user in enumerate(users):
        await save(artifact_service, "a.txt", bytes([index]), user_id=user)
        await save(artifact_service, "user:p.txt", bytes([index]), user_id=user, session_id=None)
    await save(artifact_service, "a.txt", b"nested", app_name="org/app", session_id="t/1")
    for index, user in enumerate(users):
        assert await load(artifact_service, "a.txt", user_id=user) == bytes([index])
        assert await load(artifact_service, "user:p.txt", user_id=user, session_id=None) == bytes(
            [index]
        )
        keys = await artifact_service.list_artifact_keys(
            app_name=APP, user_id=user, session_id=SESSION
        )
        assert sorted(keys) == ["a.txt", "user:p.txt"]
    assert await load(artifact_service, "a.txt", app_name="org/app", session_id="t/1") == b"nested"
    assert await load(artifact_service, "a.txt", app_name="org", session_id="t/1") is None
    assert await load(artifact_service, "a.txt", app_name="org/app", session_id="t") is None


async def test_bad_ids_are_rejected_and_write_nothing(
    artifact_service: BaseArtifactService,
) -> None:
    where = {"app_name": APP, "user_id": USER, "session_id": SESSION}
    for field in ["app_name", "user_id", "session_id"]:
        # session_id=None is the user scope, tested above.
        for bad in [b for b in BAD_IDS if not (field == "session_id" and b is None)]:
            with pytest.raises(InputValidationError):
                await save(artifact_service, "ok.txt", b"x", **{field: bad})
            with pytest.raises(InputValidationError):
                await artifact_service.list_artifact_keys(**{**where, field: bad})
    assert await artifact_service.list_artifact_keys(**where) == []


@pytest.mark.parametrize("version", [-1, True, "1", 1.0, 2**70])
async def test_bad_version_numbers_are_rejected(
    artifact_service: BaseArtifactService, version: Any
) -> None:
    await save(artifact_service, "a.txt", b"x")
    with pytest.raises(InputValidationError):
        await load(artifact_service, "a.txt", version)


@pytest.mark.parametrize(
    "artifact",
    [
        None,
        "text",
        3,
        types.Part(),
        {"inlineData": 5},
        types.Part(text="lone \udc80 surrogate"),
        types.Part(inline_data=types.Blob(data=b"x", mime_type="text/\x00plain")),
    ],
)
async def test_bad_artifacts_are_rejected(
    artifact_service: BaseArtifactService, artifact: Any
) -> None:
    where = {"app_name": APP, "user_id": USER, "session_id": SESSION}
    with pytest.raises(InputValidationError):
        await artifact_service.save_artifact(filename="a.txt", artifact=artifact, **where)
    assert await artifact_service.list_artifact_keys(**where) == []


async def test_artifact_calls_never_block_the_loop(
    artifact_service: BaseArtifactService, blockbuster: BlockBuster
) -> None:
    assert await save(artifact_service, "a.bin", b"x" * 4096) == 0
    assert await load(artifact_service, "a.bin") == b"x" * 4096
    where = {"app_name": APP, "user_id": USER, "session_id": SESSION}
    assert await artifact_service.list_artifact_keys(**where) == ["a.bin"]
    assert len(await artifact_service.list_artifact_versions(filename="a.bin", **where)) == 1
    await artifact_service.delete_artifact(filename="a.bin", **where)
