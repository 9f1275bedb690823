"""What a plugin does to an event is what is committed, on every backend, and on resume."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.apps import App
from adk_runtime.events import Event, EventActions
from adk_runtime.models import LlmRequest
from adk_runtime.plugins import BasePlugin
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel, function_call
from tests.llm.helpers import texts


class Stamp(BasePlugin):
    """Replaces each agent text, tags the event and writes state through it."""

    def __init__(self) -> None:
        super().__init__("stamp")
        self.seen: list[str] = []

    async def on_event_callback(self, *, invocation_context: Any, event: Event) -> Event | None:
        self.seen.append(event.id)
        if event.content is None or not any(p.text for p in event.content.parts or []):
            return None
        text = "".join(p.text or "" for p in event.content.parts or [])
        return Event(
            id="ignored",  # a replacement cannot change the event's identity
            content=types.Content(role="model", parts=[types.Part(text=f"[{text}]")]),
            custom_metadata={"stamped": True},
            actions=EventActions(state_delta={"stamped": text}),
        )


def _app(model: ScriptedModel, tools: list[Any] | None = None) -> App:
    return App(
        name="plugged",
        root_agent=LlmAgent(name="a", model=model, tools=tools or []),
        plugins=[Stamp()],
    )


async def test_a_replaced_event_is_what_is_committed_and_yielded(
    session_service: BaseSessionService,
) -> None:
    sid = uuid.uuid4().hex
    await session_service.create_session(app_name="plugged", user_id="u", session_id=sid)
    app = _app(ScriptedModel(replies=["hello"]))
    runner = Runner(app=app, session_service=session_service)
    message = types.Content(role="user", parts=[types.Part(text="hi")])
    events = [e async for e in runner.run_async(user_id="u", session_id=sid, new_message=message)]
    [event] = events
    assert texts(events) == ["[hello]"]
    stamp = runner.plugin_manager.get_plugin("stamp")
    assert isinstance(stamp, Stamp)
    assert stamp.seen == [event.id]
    assert event.id != "ignored"
    assert event.author == "a"
    session = await session_service.get_session(app_name="plugged", user_id="u", session_id=sid)
    assert session is not None
    stored = session.events[-1]
    assert (stored.id, texts([stored]), stored.custom_metadata) == (
        event.id,
        ["[hello]"],
        {"stamped": True},
    )
    assert session.state == {"stamped": "hello"}


class Crash(BaseException):
    """Stands for the process dying."""


async def test_a_resumed_invocation_goes_through_the_plugins(
    session_service: BaseSessionService,
) -> None:
    sid = uuid.uuid4().hex
    await session_service.create_session(app_name="plugged", user_id="u", session_id=sid)
    crashed = [False]

    def reply(request: LlmRequest) -> Any:
        answered = any(part.function_response for c in request.contents for part in c.parts or [])
        if not answered:
            return function_call("ping", {}, id="call-1")
        if not crashed[0]:
            crashed[0] = True
            raise Crash
        return "pong"

    def ping() -> dict[str, str]:
        """Ping."""
        return {"ok": "yes"}

    message = types.Content(role="user", parts=[types.Part(text="go")])
    first = Runner(app=_app(ScriptedModel(handler=reply), [ping]), session_service=session_service)
    with pytest.raises(Crash):
        async for _ in first.run_async(user_id="u", session_id=sid, new_message=message):
            pass
    session = await session_service.get_session(app_name="plugged", user_id="u", session_id=sid)
    assert session is not None
    invocation = session.events[0].invocation_id

    again = Runner(app=_app(ScriptedModel(handler=reply), [ping]), session_service=session_service)
    resumed = [
        e async for e in again.run_async(user_id="u", session_id=sid, invocation_id=invocation)
    ]
    assert texts(resumed) == ["[pong]"]
    session = await session_service.get_session(app_name="plugged", user_id="u", session_id=sid)
    assert session is not None
    assert texts(session.events) == ["go", "[pong]"]
    assert session.state == {"stamped": "pong"}
