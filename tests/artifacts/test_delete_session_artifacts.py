"""Deleting a session through the HTTP route and the CLI deletes its artifacts, on every store.

The sessions live in a real SQLite file; the HTTP test runs over the memory, file, SQLite and
PostgreSQL artifact stores (the ``artifact_service`` fixture), the CLI test over the stores a
URL reaches from another command (the session database, a directory). The session backends
are covered by tests/contract/test_delete_artifacts.py.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from google.genai import types

from adk_runtime.artifacts import BaseArtifactService, artifact_service_from_url
from adk_runtime.cli import main
from adk_runtime.server.app import create_app
from adk_runtime.sessions import session_service_from_url
from tests.artifacts.test_rewind_fork_artifacts import APP, _runner, _say, _sessions


async def test_delete_through_the_server_deletes_the_session_artifacts(
    artifact_service: BaseArtifactService, tmp_path: Path
) -> None:
    async with _sessions(tmp_path) as sessions:
        runner = _runner(sessions, artifact_service)
        app = create_app(
            agent=runner.agent,
            session_service=sessions,
            artifact_service=artifact_service,
            app_name=APP,
        )
        base = f"/apps/{APP}/users/u/sessions"
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            assert (await client.post(base, json={"sessionId": "s"})).status_code == 200
            for name in ("upload.txt", "user:profile.txt"):
                upload = {"filename": name, "artifact": {"text": "uploaded"}}
                assert (await client.post(f"{base}/s/artifacts", json=upload)).status_code == 200
            await _say(runner, "s", "report.txt=by the turn")
            names = (await client.get(f"{base}/s/artifacts")).json()
            assert names == ["report.txt", "upload.txt", "user:profile.txt"]

            assert (await client.delete(f"{base}/s")).status_code < 300
            assert (await client.post(base, json={"sessionId": "s"})).status_code == 200
            assert (await client.get(f"{base}/s/artifacts")).json() == ["user:profile.txt"]
            gone = await client.get(f"{base}/s/artifacts/report.txt")
            assert gone.status_code == 404

            # A delete interrupted after the session went: the retry cleans up (and says 404).
            await client.post(f"{base}/s/artifacts", json=upload | {"filename": "left.txt"})
            await sessions.delete_session(app_name=APP, user_id="u", session_id="s")
            assert (await client.delete(f"{base}/s")).status_code == 404
            left = await artifact_service.list_artifact_keys(
                app_name=APP, user_id="u", session_id="s"
            )
            assert left == ["user:profile.txt"]


@pytest.mark.parametrize("store", ["session-database", "directory"])
def test_cli_delete_deletes_the_session_artifacts(tmp_path: Path, store: str) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 's.db'}"
    artifact_url = url if store == "session-database" else (tmp_path / "arts").as_uri()

    async def keys() -> list[str]:
        async with artifact_service_from_url(artifact_url) as artifacts:
            return await artifacts.list_artifact_keys(app_name=APP, user_id="u", session_id="s")

    async def conversation(*, session: bool) -> None:
        async with (
            session_service_from_url(url) as sessions,
            artifact_service_from_url(artifact_url) as artifacts,
        ):
            if session:
                await sessions.create_session(app_name=APP, user_id="u", session_id="s")
            for name in ("upload.txt", "user:profile.txt"):
                await artifacts.save_artifact(
                    app_name=APP,
                    user_id="u",
                    session_id="s",
                    filename=name,
                    artifact=types.Part(text="x"),
                )
            if session:
                await _say(_runner(sessions, artifacts), "s", "report.txt=by the turn")

    asyncio.run(conversation(session=True))
    assert asyncio.run(keys()) == ["report.txt", "upload.txt", "user:profile.txt"]
    args = ["sessions", "delete", "s", "--url", url, "--app", APP, "--user", "u", "--yes"]
    args += ["--artifact-url", artifact_url]
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 0, done.output
    assert asyncio.run(keys()) == ["user:profile.txt"]

    # Leftovers of an interrupted delete (no session, its artifacts still there): a retry
    # deletes them and still says the session is not there.
    asyncio.run(conversation(session=False))
    again = CliRunner().invoke(main, args)
    assert again.exit_code != 0
    assert "deleted 1 artifact(s) left by session s" in again.output
    assert asyncio.run(keys()) == ["user:profile.txt"]
