"""The file store describes its versions as FileArtifactVersion (google-adk's type)."""

from __future__ import annotations

from pathlib import Path

from google.genai import types

from adk_runtime.artifacts import FileArtifactService
from adk_runtime.artifacts.base import ArtifactVersion
from adk_runtime.artifacts.file_artifact_service import FileArtifactVersion


async def test_versions_name_their_file_and_display_name(tmp_path: Path) -> None:
    store = FileArtifactService(tmp_path / "artifacts")
    blob = types.Blob(mime_type="image/png", data=b"\x89PNG", display_name="Cat picture")
    scope = {"app_name": "a", "user_id": "u", "session_id": "s"}
    await store.save_artifact(**scope, filename="cat.png", artifact=types.Part(inline_data=blob))
    await store.save_artifact(**scope, filename="cat.png", artifact=types.Part(text="a cat"))
    await store.save_artifact(
        **scope, filename="user:avatar.png", artifact=types.Part(inline_data=blob)
    )
    first, second = await store.list_artifact_versions(**scope, filename="cat.png")
    assert isinstance(first, FileArtifactVersion)
    assert isinstance(first, ArtifactVersion)
    assert (first.version, first.file_name, first.display_name) == (0, "cat.png", "Cat picture")
    assert (second.file_name, second.display_name, second.mime_type) == (
        "cat.png",
        None,
        "text/plain",
    )
    latest = await store.get_artifact_version(**scope, filename="user:avatar.png")
    assert isinstance(latest, FileArtifactVersion)
    assert latest.file_name == "user:avatar.png"
    assert (
        latest.model_dump(by_alias=True)["fileName"] == "user:avatar.png"
    )  # camelCase, as ArtifactVersion
