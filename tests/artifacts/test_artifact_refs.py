"""Artifact references (``artifact://`` parts) on every store: followed on load, kept in scope."""

from __future__ import annotations

import pytest
from google.genai import types

from adk_runtime.artifacts import BaseArtifactService
from adk_runtime.artifacts.artifact_util import MAX_REFERENCE_DEPTH, get_artifact_uri
from adk_runtime.errors import InputValidationError

APP, USER, SESSION = "app", "alice", "s1"


def ref(uri: str) -> types.Part:
    return types.Part(file_data=types.FileData(file_uri=uri, mime_type="text/plain"))


async def save(
    service: BaseArtifactService, filename: str, part: types.Part, session: str = SESSION
) -> int:
    return await service.save_artifact(
        app_name=APP, user_id=USER, session_id=session, filename=filename, artifact=part
    )


async def load(
    service: BaseArtifactService, filename: str, session: str = SESSION
) -> types.Part | None:
    return await service.load_artifact(
        app_name=APP, user_id=USER, session_id=session, filename=filename
    )


async def test_a_reference_loads_the_version_it_names(
    artifact_service: BaseArtifactService,
) -> None:
    await save(artifact_service, "docs/report.txt", types.Part(text="v0"))
    await save(artifact_service, "docs/report.txt", types.Part(text="v1"))
    uri = get_artifact_uri(APP, USER, "docs/report.txt", 0, session_id=SESSION)
    await save(artifact_service, "pointer", ref(uri))
    await save(
        artifact_service, "pointer2", ref(get_artifact_uri(APP, USER, "pointer", 0, SESSION))
    )
    assert await load(artifact_service, "pointer") == types.Part(text="v0")
    assert await load(artifact_service, "pointer2") == types.Part(text="v0")


async def test_a_user_artifact_is_reachable_from_any_session_of_its_user(
    artifact_service: BaseArtifactService,
) -> None:
    await save(artifact_service, "user:profile.txt", types.Part(text="profile"))
    await save(artifact_service, "p", ref(get_artifact_uri(APP, USER, "user:profile.txt", 0)), "s2")
    assert await load(artifact_service, "p", "s2") == types.Part(text="profile")


@pytest.mark.parametrize(
    "uri",
    [
        get_artifact_uri(APP, "mallory", "user:secret", 0),
        get_artifact_uri("other-app", USER, "user:secret", 0),
        get_artifact_uri(APP, USER, "notes.txt", 0, session_id="s2"),
        "artifact://apps/app/nowhere",
    ],
    ids=["other-user", "other-app", "other-session", "malformed"],
)
async def test_a_reference_out_of_scope_or_malformed_is_refused_on_save(
    artifact_service: BaseArtifactService, uri: str
) -> None:
    with pytest.raises(InputValidationError):
        await save(artifact_service, "pointer", ref(uri))
    assert await load(artifact_service, "pointer") is None


async def test_a_reference_loop_fails_after_the_depth_limit(
    artifact_service: BaseArtifactService,
) -> None:
    # "a" (version 0) points at "b" version 0, which points back at "a" version 0.
    await save(artifact_service, "a", ref(get_artifact_uri(APP, USER, "b", 0, SESSION)))
    await save(artifact_service, "b", ref(get_artifact_uri(APP, USER, "a", 0, SESSION)))
    with pytest.raises(InputValidationError, match=str(MAX_REFERENCE_DEPTH)):
        await load(artifact_service, "a")


async def test_a_reference_to_a_missing_version_loads_none(
    artifact_service: BaseArtifactService,
) -> None:
    await save(artifact_service, "pointer", ref(get_artifact_uri(APP, USER, "gone", 3, SESSION)))
    assert await load(artifact_service, "pointer") is None


async def test_an_ordinary_file_uri_is_stored_as_it_is(
    artifact_service: BaseArtifactService,
) -> None:
    part = types.Part(file_data=types.FileData(file_uri="gs://bucket/x.png", mime_type="image/png"))
    await save(artifact_service, "remote", part)
    assert await load(artifact_service, "remote") == part
