"""``adk api_server --session_service_uri adkrt+…``: google-adk's own server on our store."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from adk_runtime.sessions import session_service_from_url
from tests.integrations.support import APP, artifact_uri, store_uri
from tests.serving import free_port, running_process
from tests.stores import durable_params

AGENT_MODULE = "from tests.integrations.adk_agent import root_agent\n"
SERVICES_PY = "from adk_runtime.integrations.google_adk import register\n\nregister()\n"


def _agents_dir(tmp_path: Path) -> Path:
    """An agents directory as ``adk`` expects it, registering adkrt+ URIs in services.py."""
    agents = tmp_path / "agents"
    (agents / APP).mkdir(parents=True)
    (agents / APP / "__init__.py").write_text("from . import agent\n")
    (agents / APP / "agent.py").write_text(AGENT_MODULE)
    (agents / "services.py").write_text(SERVICES_PY)
    return agents


@contextlib.contextmanager
def _api_server(agents: Path, session_uri: str, artifact_uri: str) -> Iterator[str]:
    port = free_port()
    adk = Path(sys.executable).parent / "adk"
    command = [str(adk), "api_server", "--host", "127.0.0.1", "--port", str(port)]
    command += ["--session_service_uri", session_uri, "--artifact_service_uri", artifact_uri]
    with running_process([*command, str(agents)], port, "/list-apps", start_seconds=60) as base:
        yield base


def _run(base: str, text: str) -> list[dict[str, Any]]:
    body = {
        "appName": APP,
        "userId": "u",
        "sessionId": "s1",
        "newMessage": {"role": "user", "parts": [{"text": text}]},
    }
    response = httpx.post(base + "/run", json=body, timeout=60)
    assert response.status_code == 200, response.text
    events: list[dict[str, Any]] = response.json()
    return events


@pytest.mark.parametrize("backend", durable_params())
async def test_api_server_conversation_survives_its_restart(backend: str, tmp_path: Path) -> None:
    agents = _agents_dir(tmp_path)
    async with store_uri(backend, tmp_path) as uri:
        await asyncio.to_thread(_converse_across_a_restart, agents, uri, tmp_path)
        revision, count, last = await _read_ours(uri.removeprefix("adkrt+"))
    assert revision == count  # every event, gapless, in our layout
    assert last == "echo: hello (history 5)"


def _converse_across_a_restart(agents: Path, uri: str, tmp_path: Path) -> None:
    with _api_server(agents, uri, artifact_uri(uri, tmp_path)) as base:
        created = httpx.post(
            f"{base}/apps/{APP}/users/u/sessions/s1", json={"topic": "fruit"}, timeout=30
        )
        assert created.status_code == 200, created.text
        events = _run(base, "remember apples")
        assert events[-1]["content"]["parts"][0]["text"] == "stored apples"

    with _api_server(
        agents, uri, artifact_uri(uri, tmp_path)
    ) as base:  # a new process: everything comes from the file
        session = httpx.get(f"{base}/apps/{APP}/users/u/sessions/s1", timeout=30).json()
        assert session["state"] == {
            "topic": "fruit",
            "notes": ["apples"],
            "user:last": "apples",
            "app:count": 1,
        }
        assert [e["id"] for e in session["events"][-len(events) :]] == [e["id"] for e in events]
        artifact = httpx.get(
            f"{base}/apps/{APP}/users/u/sessions/s1/artifacts/note.txt", timeout=30
        )
        assert artifact.status_code == 200, artifact.text
        reply = _run(base, "hello")
        assert reply[-1]["content"]["parts"][0]["text"] == "echo: hello (history 5)"


async def _read_ours(url: str) -> tuple[int, int, str | None]:
    """adk_runtime's own service reads the conversation the server wrote (our layout)."""
    async with session_service_from_url(url) as service:
        session = await service.get_session(app_name=APP, user_id="u", session_id="s1")
    assert session is not None
    last = session.events[-1].content
    assert last is not None
    assert last.parts is not None
    return session.revision, len(session.events), last.parts[0].text
