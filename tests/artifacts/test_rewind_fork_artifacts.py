"""Rewind and fork on every artifact store: uploads no event names, history kept, forks load.

The sessions live in a real SQLite file; each test runs over the memory, file, SQLite and
PostgreSQL artifact stores (the ``artifact_service`` fixture). The session backends are
covered by tests/contract/test_rewind.py and test_fork.py.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.artifacts import BaseArtifactService
from adk_runtime.core.tool_context import ToolContext
from adk_runtime.errors import AlreadyExistsError
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.runners import Runner
from adk_runtime.server.app import create_app
from adk_runtime.sessions import BaseSessionService, session_service_from_url
from adk_runtime.testing.scripted_model import ScriptedModel, function_call

APP = "writer"


async def write(filename: str, text: str, tool_context: ToolContext) -> dict[str, Any]:
    """Save ``text`` as a new version of ``filename``."""
    version = await tool_context.save_artifact(filename, types.Part(text=text))
    return {"version": version}


def _reply(request: LlmRequest) -> Any:
    part = (request.contents[-1].parts or [types.Part()])[0]
    if part.function_response is not None:
        return "saved"
    filename, _, text = (part.text or "").partition("=")
    return function_call("write", {"filename": filename, "text": text})


@contextlib.asynccontextmanager
async def _sessions(tmp_path: Path) -> AsyncIterator[BaseSessionService]:
    async with session_service_from_url(f"sqlite+aiosqlite:///{tmp_path / 's.db'}") as service:
        yield service


def _runner(sessions: BaseSessionService, artifacts: BaseArtifactService) -> Runner:
    agent = LlmAgent(name="writer", model=ScriptedModel(handler=_reply), tools=[write])
    return Runner(app_name=APP, agent=agent, session_service=sessions, artifact_service=artifacts)


async def _say(runner: Runner, sid: str, text: str) -> str:
    """Run one turn (``name=text`` saves text as name); return its invocation id."""
    message = types.Content(role="user", parts=[types.Part(text=text)])
    events = [e async for e in runner.run_async(user_id="u", session_id=sid, new_message=message)]
    return events[0].invocation_id


async def _text(
    artifacts: BaseArtifactService, sid: str, name: str, version: int | None = None
) -> str | None:
    part = await artifacts.load_artifact(
        app_name=APP, user_id="u", session_id=sid, filename=name, version=version
    )
    return None if part is None else part.text


async def _upload(artifacts: BaseArtifactService, sid: str, name: str, text: str) -> int:
    return await artifacts.save_artifact(
        app_name=APP, user_id="u", session_id=sid, filename=name, artifact=types.Part(text=text)
    )


async def _versions(artifacts: BaseArtifactService, sid: str, name: str) -> list[int]:
    return await artifacts.list_versions(app_name=APP, user_id="u", session_id=sid, filename=name)


async def test_rewind_restores_an_upload_no_event_names_and_keeps_every_version(
    artifact_service: BaseArtifactService, tmp_path: Path
) -> None:
    async with _sessions(tmp_path) as sessions:
        runner = _runner(sessions, artifact_service)
        await sessions.create_session(app_name=APP, user_id="u", session_id="s")
        assert await _upload(artifact_service, "s", "report.txt", "uploaded") == 0
        first = await _say(runner, "s", "other.txt=first")
        assert await _upload(artifact_service, "s", "report.txt", "between turns") == 1
        second = await _say(runner, "s", "report.txt=by the turn")
        await _say(runner, "s", "new.txt=created later")

        await runner.rewind_async(user_id="u", session_id="s", rewind_before_invocation_id=second)

        assert await _text(artifact_service, "s", "report.txt") == "between turns"
        assert await _versions(artifact_service, "s", "report.txt") == [0, 1, 2, 3]
        assert await _text(artifact_service, "s", "report.txt", 2) == "by the turn"
        assert await _text(artifact_service, "s", "other.txt") == "first"  # before: untouched
        assert await _text(artifact_service, "s", "new.txt") is None  # did not exist then
        assert await _versions(artifact_service, "s", "new.txt") == [0, 1]  # history kept
        assert await _text(artifact_service, "s", "new.txt", 0) == "created later"
        session = await sessions.get_session(app_name=APP, user_id="u", session_id="s")
        assert session is not None
        assert session.events[-1].actions.artifact_delta == {"report.txt": 3, "new.txt": 1}

        # Further back: the upload made before the first turn; other.txt did not exist then.
        await runner.rewind_async(user_id="u", session_id="s", rewind_before_invocation_id=first)
        assert await _text(artifact_service, "s", "report.txt") == "uploaded"
        assert await _text(artifact_service, "s", "other.txt") is None
        assert await _versions(artifact_service, "s", "new.txt") == [0, 1]  # absent already


async def test_a_fork_loads_every_version_its_history_names_and_is_independent(
    artifact_service: BaseArtifactService, tmp_path: Path
) -> None:
    async with _sessions(tmp_path) as sessions:
        runner = _runner(sessions, artifact_service)
        await sessions.create_session(app_name=APP, user_id="u", session_id="s")
        await _upload(artifact_service, "s", "report.txt", "uploaded")  # v0, no event
        await _say(runner, "s", "report.txt=by the turn")  # v1
        await _say(runner, "s", "user:profile.txt=shared")  # the user's: not copied
        await artifact_service.save_artifact(  # a reference to a version of its own session
            app_name=APP,
            user_id="u",
            session_id="s",
            filename="alias.txt",
            artifact=types.Part(
                file_data=types.FileData(
                    file_uri=f"artifact://apps/{APP}/users/u/sessions/s/artifacts/report.txt/versions/0"
                )
            ),
        )

        fork = await sessions.fork_session(
            app_name=APP,
            user_id="u",
            session_id="s",
            new_session_id="f",
            artifact_service=artifact_service,
        )

        named = {n: v for e in fork.events for n, v in e.actions.artifact_delta.items()}
        assert named == {"report.txt": 1, "user:profile.txt": 0}
        assert await _versions(artifact_service, "f", "report.txt") == [0, 1]
        assert [await _text(artifact_service, "f", "report.txt", v) for v in (0, 1)] == [
            "uploaded",
            "by the turn",
        ]
        assert await _text(artifact_service, "f", "user:profile.txt") == "shared"
        assert await _text(artifact_service, "f", "alias.txt") == "uploaded"
        # Independent: a save in either session leaves the other's artifacts as they were.
        assert await _upload(artifact_service, "f", "report.txt", "in the fork") == 2
        assert await _upload(artifact_service, "s", "report.txt", "in the source") == 2
        assert await _text(artifact_service, "f", "report.txt") == "in the fork"
        assert await _text(artifact_service, "s", "report.txt") == "in the source"


async def test_a_fork_at_an_event_copies_the_artifacts_as_they_were_then(
    artifact_service: BaseArtifactService, tmp_path: Path
) -> None:
    async with _sessions(tmp_path) as sessions:
        runner = _runner(sessions, artifact_service)
        await sessions.create_session(app_name=APP, user_id="u", session_id="s")
        await _say(runner, "s", "report.txt=one")  # v0
        await _say(runner, "s", "report.txt=two")  # v1
        await _say(runner, "s", "later.txt=after the point")
        source = await sessions.get_session(app_name=APP, user_id="u", session_id="s")
        assert source is not None
        point = next(e for e in source.events if e.actions.artifact_delta == {"report.txt": 0})

        fork = await sessions.fork_session(
            app_name=APP,
            user_id="u",
            session_id="s",
            new_session_id="f",
            at_event_id=point.id,
            artifact_service=artifact_service,
        )

        assert fork.events[-1].id == point.id
        assert await _versions(artifact_service, "f", "report.txt") == [0]
        assert await _text(artifact_service, "f", "report.txt") == "one"
        assert await _text(artifact_service, "f", "later.txt") is None
        assert await _upload(artifact_service, "f", "report.txt", "fork") == 1  # its own next


async def test_a_fork_whose_artifacts_cannot_be_copied_is_not_left_behind(
    artifact_service: BaseArtifactService, tmp_path: Path
) -> None:
    async with _sessions(tmp_path) as sessions:
        runner = _runner(sessions, artifact_service)
        await sessions.create_session(app_name=APP, user_id="u", session_id="s")
        await _say(runner, "s", "report.txt=one")
        # A deleted session "f" left an artifact of the same name behind.
        await _upload(artifact_service, "f", "report.txt", "left behind")
        with pytest.raises(AlreadyExistsError):
            await sessions.fork_session(
                app_name=APP,
                user_id="u",
                session_id="s",
                new_session_id="f",
                artifact_service=artifact_service,
            )
        assert await sessions.get_session(app_name=APP, user_id="u", session_id="f") is None
        assert await _text(artifact_service, "f", "report.txt") == "left behind"


async def test_rewind_and_fork_through_the_server(
    artifact_service: BaseArtifactService, tmp_path: Path
) -> None:
    async with _sessions(tmp_path) as sessions:
        runner = _runner(sessions, artifact_service)
        agent = runner.agent
        app = create_app(
            agent=agent, session_service=sessions, artifact_service=artifact_service, app_name=APP
        )
        transport = httpx.ASGITransport(app=app)
        base = f"/apps/{APP}/users/u/sessions"
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            assert (await client.post(base, json={"sessionId": "s"})).status_code == 200
            upload = {"filename": "report.txt", "artifact": {"text": "uploaded"}}
            saved = await client.post(f"{base}/s/artifacts", json=upload)
            assert saved.status_code == 200, saved.text
            turn = await _say(runner, "s", "report.txt=by the turn")

            forked = await client.post(f"{base}/s/fork", json={"newSessionId": "f"})
            assert forked.status_code == 200, forked.text
            loaded = await client.get(f"{base}/f/artifacts/report.txt", params={"version": 1})
            assert loaded.status_code == 200, loaded.text
            assert loaded.json()["text"] == "by the turn"

            await runner.rewind_async(user_id="u", session_id="s", rewind_before_invocation_id=turn)
            latest = await client.get(f"{base}/s/artifacts/report.txt")
            assert latest.json()["text"] == "uploaded"
            versions = await client.get(f"{base}/s/artifacts/report.txt/versions")
            assert versions.json() == [0, 1, 2]
            in_fork = await client.get(f"{base}/f/artifacts/report.txt")
            assert in_fork.json()["text"] == "by the turn"  # the fork is not rewound
