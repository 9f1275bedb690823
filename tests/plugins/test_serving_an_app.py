"""``--agent module:app`` and ``create_app(agent=App(...))``: a served App brings its plugins."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from adk_runtime.agents import LlmAgent
from adk_runtime.apps import App
from adk_runtime.cli._common import load_agent, runner_root
from adk_runtime.errors import ConfigurationError
from adk_runtime.events import Event
from adk_runtime.plugins import BasePlugin
from adk_runtime.server import create_app
from adk_runtime.sessions import InMemorySessionService
from adk_runtime.testing import ScriptedModel


class Tag(BasePlugin):
    async def on_event_callback(self, *, invocation_context: Any, event: Event) -> Event | None:
        return Event(custom_metadata={"tagged": True})


APP = App(
    name="tagged",
    root_agent=LlmAgent(name="clerk", model=ScriptedModel(replies=["hi"] * 10)),
    plugins=[Tag("tag")],
)
NOT_AN_AGENT = 42


def test_the_cli_loads_an_app_or_an_agent() -> None:
    loaded = load_agent(f"{__name__}:APP")
    assert loaded is APP
    assert runner_root(loaded, None) == {"app": APP, "app_name": None}
    assert runner_root(APP.root_agent, None) == {"agent": APP.root_agent, "app_name": "clerk"}  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="or an adk_runtime App"):
        load_agent(f"{__name__}:NOT_AN_AGENT")


async def test_a_served_app_runs_its_plugins() -> None:
    server = create_app(agent=APP, session_service=InMemorySessionService())
    transport = httpx.ASGITransport(app=server)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        assert (await http.get("/list-apps")).json() == ["tagged"]
        (await http.post("/apps/tagged/users/u/sessions/s")).raise_for_status()
        message = {"role": "user", "parts": [{"text": "hello"}]}
        body = {"appName": "tagged", "userId": "u", "sessionId": "s", "newMessage": message}
        events = (await http.post("/run", json=body)).json()
        assert [e["customMetadata"] for e in events] == [{"tagged": True}]
        stored = (await http.get("/apps/tagged/users/u/sessions/s")).json()
        assert stored["events"][-1]["customMetadata"] == {"tagged": True}
