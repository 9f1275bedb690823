"""Deleting (or pruning) a session deletes its own artifacts too, on every session backend.

A session created again under a deleted id must not see the deleted conversation's files;
``user:`` artifacts belong to the user and stay; a delete run again after a crash between the
session delete and the artifact delete finishes the job. The artifact stores themselves are
covered by tests/artifacts/test_delete_session_artifacts.py.
"""

from __future__ import annotations

import asyncio
import uuid

from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.artifacts import InMemoryArtifactService
from adk_runtime.core.tool_context import ToolContext
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing.scripted_model import ScriptedModel, function_call

USER = "u"


async def write(filename: str, tool_context: ToolContext) -> dict[str, int]:
    """Save a new version of ``filename``."""
    return {"version": await tool_context.save_artifact(filename, types.Part(text="by a turn"))}


def _reply(request: LlmRequest) -> object:
    part = (request.contents[-1].parts or [types.Part()])[0]
    if part.function_response is not None:
        return "saved"
    return function_call("write", {"filename": part.text or ""})


async def _conversation(
    sessions: BaseSessionService, artifacts: InMemoryArtifactService, app: str, sid: str
) -> None:
    """A session with an upload, an artifact a turn saved and a ``user:`` artifact."""
    await sessions.create_session(app_name=app, user_id=USER, session_id=sid)
    for name, where in (("upload.txt", sid), ("user:profile.txt", sid)):
        await artifacts.save_artifact(
            app_name=app,
            user_id=USER,
            session_id=where,
            filename=name,
            artifact=types.Part(text="uploaded"),
        )
    agent = LlmAgent(name="writer", model=ScriptedModel(handler=_reply), tools=[write])
    runner = Runner(app_name=app, agent=agent, session_service=sessions, artifact_service=artifacts)
    message = types.Content(role="user", parts=[types.Part(text="report.txt")])
    async for _ in runner.run_async(user_id=USER, session_id=sid, new_message=message):
        pass
    assert await _names(artifacts, app, sid) == ["report.txt", "upload.txt", "user:profile.txt"]


async def _names(artifacts: InMemoryArtifactService, app: str, sid: str) -> list[str]:
    return await artifacts.list_artifact_keys(app_name=app, user_id=USER, session_id=sid)


def _app() -> str:
    return f"delart-{uuid.uuid4().hex[:8]}"


async def test_a_session_created_again_sees_none_of_the_deleted_ones_artifacts(
    session_service: BaseSessionService,
) -> None:
    app, artifacts = _app(), InMemoryArtifactService()
    await _conversation(session_service, artifacts, app, "s")
    await session_service.delete_session(
        app_name=app, user_id=USER, session_id="s", artifact_service=artifacts
    )
    await session_service.create_session(app_name=app, user_id=USER, session_id="s")
    assert await _names(artifacts, app, "s") == ["user:profile.txt"]  # the user's stays
    part = await artifacts.load_artifact(
        app_name=app, user_id=USER, session_id="s", filename="report.txt"
    )
    assert part is None


async def test_deleting_again_cleans_up_what_an_interrupted_delete_left(
    session_service: BaseSessionService,
) -> None:
    app, artifacts = _app(), InMemoryArtifactService()
    await _conversation(session_service, artifacts, app, "s")
    # As if the process died after the session delete committed, before the artifacts went.
    await session_service.delete_session(app_name=app, user_id=USER, session_id="s")
    assert await _names(artifacts, app, "s") == ["report.txt", "upload.txt", "user:profile.txt"]
    await session_service.delete_session(
        app_name=app, user_id=USER, session_id="s", artifact_service=artifacts
    )
    assert await _names(artifacts, app, "s") == ["user:profile.txt"]


async def test_pruning_with_an_artifact_service_deletes_the_pruned_sessions_artifacts(
    session_service: BaseSessionService,
) -> None:
    app, artifacts = _app(), InMemoryArtifactService()
    await _conversation(session_service, artifacts, app, "old")
    await asyncio.sleep(1.2)
    await session_service.create_session(app_name=app, user_id=USER, session_id="new")
    await artifacts.save_artifact(
        app_name=app,
        user_id=USER,
        session_id="new",
        filename="n.txt",
        artifact=types.Part(text="n"),
    )
    result = await session_service.prune_sessions(
        app_name=app, idle_longer_than=1.0, artifact_service=artifacts
    )
    assert [s.session_id for s in result.sessions] == ["old"]
    assert await _names(artifacts, app, "old") == ["user:profile.txt"]
    assert await _names(artifacts, app, "new") == ["n.txt", "user:profile.txt"]
