"""Runner.rewind_async on every session backend: state, artifacts, events, revision, races."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.artifacts import InMemoryArtifactService
from adk_runtime.core.tool_context import ToolContext
from adk_runtime.errors import InvocationNotFoundError, SessionBusyError
from adk_runtime.events import Event
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing.scripted_model import ScriptedModel, function_call

APP = "rewinds"


class Notebook:
    """A tool writing state of every scope and artifacts; it can be held mid-call."""

    def __init__(self) -> None:
        self.hold: asyncio.Event | None = None
        self.entered = asyncio.Event()

    async def note(self, text: str, tool_context: ToolContext) -> dict[str, Any]:
        """Write the note down."""
        self.entered.set()
        if self.hold is not None:
            await self.hold.wait()
        state = tool_context.state
        state["last"] = text
        state["count"] = int(state.get("count") or 0) + 1
        state[f"seen_{text}"] = True
        state["app:notes"] = int(state.get("app:notes") or 0) + 1
        await tool_context.save_artifact("doc.txt", types.Part(text=text))
        if text == "two":
            await tool_context.save_artifact("new.txt", types.Part(text="created later"))
        return {"noted": text}


def _reply(request: LlmRequest) -> Any:
    last = request.contents[-1]
    part = (last.parts or [types.Part()])[0]
    if part.function_response is not None:
        return "noted"
    return function_call("note", {"text": part.text or ""})


def _runner(service: BaseSessionService, book: Notebook) -> tuple[Runner, ScriptedModel]:
    model = ScriptedModel(handler=_reply)
    agent = LlmAgent(name="scribe", model=model, tools=[book.note])
    runner = Runner(
        app_name=APP,
        agent=agent,
        session_service=service,
        artifact_service=InMemoryArtifactService(),
    )
    return runner, model


async def _say(runner: Runner, sid: str, text: str) -> list[Event]:
    message = types.Content(role="user", parts=[types.Part(text=text)])
    return [e async for e in runner.run_async(user_id="u", session_id=sid, new_message=message)]


async def _artifact(runner: Runner, sid: str, name: str) -> str | None:
    assert runner.artifact_service is not None
    part = await runner.artifact_service.load_artifact(
        app_name=APP, user_id="u", session_id=sid, filename=name
    )
    return None if part is None else part.text


async def test_rewind_restores_state_and_artifacts_in_one_event(
    session_service: BaseSessionService,
) -> None:
    book = Notebook()
    runner, model = _runner(session_service, book)
    sid = uuid.uuid4().hex
    await session_service.create_session(
        app_name=APP, user_id="u", session_id=sid, state={"kept": "from creation"}
    )
    await _say(runner, sid, "one")
    second = await _say(runner, sid, "two")
    before = await session_service.get_session(app_name=APP, user_id="u", session_id=sid)
    assert before is not None
    assert (before.state["last"], await _artifact(runner, sid, "new.txt")) == (
        "two",
        "created later",
    )

    await runner.rewind_async(
        user_id="u", session_id=sid, rewind_before_invocation_id=second[0].invocation_id
    )

    after = await session_service.get_session(app_name=APP, user_id="u", session_id=sid)
    assert after is not None
    assert after.revision == before.revision + 1  # one event
    assert [e.id for e in after.events[:-1]] == [e.id for e in before.events]  # the log stays
    rewind = after.events[-1]
    assert rewind.author == "user"
    assert rewind.actions.rewind_before_invocation_id == second[0].invocation_id
    session_state = {k: v for k, v in after.state.items() if ":" not in k}
    assert session_state == {
        "kept": "from creation",
        "last": "one",
        "count": 1,
        "seen_one": True,
        "seen_two": None,  # did not exist before: a delta cannot remove a key
    }
    assert after.state["app:notes"] == 2  # app state is not rewound (as in google-adk)
    assert await _artifact(runner, sid, "doc.txt") == "one"  # a new version, earlier content
    assert "doc.txt" in rewind.actions.artifact_delta
    assert await _artifact(runner, sid, "new.txt") is None  # created after: a tombstone
    assert runner.artifact_service is not None
    kept = await runner.artifact_service.list_versions(
        app_name=APP, user_id="u", session_id=sid, filename="new.txt"
    )
    assert kept == [0, 1]  # nothing deleted: the history stays

    # The next turn's model sees the conversation without the rewound turn.
    model.requests.clear()
    await _say(runner, sid, "three")
    texts = [
        part.text
        for content in model.requests[0].contents
        for part in content.parts or []
        if part.text
    ]
    assert texts == ["one", "noted", "three"]


async def test_rewind_restores_an_upload_that_no_event_names(
    session_service: BaseSessionService,
) -> None:
    book = Notebook()
    runner, _ = _runner(session_service, book)
    assert runner.artifact_service is not None
    sid = uuid.uuid4().hex
    await session_service.create_session(app_name=APP, user_id="u", session_id=sid)
    uploaded = await runner.artifact_service.save_artifact(
        app_name=APP,
        user_id="u",
        session_id=sid,
        filename="doc.txt",
        artifact=types.Part(text="uploaded"),
    )
    turn = await _say(runner, sid, "one")
    assert await _artifact(runner, sid, "doc.txt") == "one"

    await runner.rewind_async(
        user_id="u", session_id=sid, rewind_before_invocation_id=turn[0].invocation_id
    )

    assert await _artifact(runner, sid, "doc.txt") == "uploaded"
    versions = await runner.artifact_service.list_versions(
        app_name=APP, user_id="u", session_id=sid, filename="doc.txt"
    )
    assert versions == [uploaded, 1, 2]  # the upload and the turn's version stay


async def test_rewind_of_an_unknown_invocation_writes_nothing(
    session_service: BaseSessionService,
) -> None:
    runner, _ = _runner(session_service, Notebook())
    sid = uuid.uuid4().hex
    await session_service.create_session(app_name=APP, user_id="u", session_id=sid)
    said = await _say(runner, sid, "one")
    with pytest.raises(InvocationNotFoundError, match="Invocation ID not found: e-x"):
        await runner.rewind_async(user_id="u", session_id=sid, rewind_before_invocation_id="e-x")
    session = await session_service.get_session(app_name=APP, user_id="u", session_id=sid)
    assert session is not None
    assert session.revision == len(said) + 1  # the message and the turn's events only


async def test_a_rewind_racing_a_turn_never_interleaves_with_it(
    session_service: BaseSessionService,
) -> None:
    book = Notebook()
    runner, _ = _runner(session_service, book)
    sid = uuid.uuid4().hex
    await session_service.create_session(app_name=APP, user_id="u", session_id=sid)
    first = await _say(runner, sid, "one")
    book.hold = asyncio.Event()
    book.entered.clear()
    turn = asyncio.create_task(_say(runner, sid, "two"))
    await book.entered.wait()  # the turn holds the session, its tool is running

    impatient, _ = _runner(session_service, book)
    impatient.session_wait_seconds = 0
    with pytest.raises(SessionBusyError):  # nothing written
        await impatient.rewind_async(
            user_id="u", session_id=sid, rewind_before_invocation_id=first[0].invocation_id
        )
    runner.session_wait_seconds = 30
    rewind = asyncio.create_task(
        runner.rewind_async(
            user_id="u", session_id=sid, rewind_before_invocation_id=first[0].invocation_id
        )
    )
    await asyncio.sleep(0.2)
    assert not rewind.done()  # it waits for the turn
    book.hold.set()
    await turn
    await rewind
    session = await session_service.get_session(app_name=APP, user_id="u", session_id=sid)
    assert session is not None
    # The turn committed whole, then the rewind undid both turns.
    assert [e.author for e in session.events] == ["user", "scribe", "scribe", "scribe"] * 2 + [
        "user"
    ]
    assert session.events[-1].actions.rewind_before_invocation_id == first[0].invocation_id
    assert {k: v for k, v in session.state.items() if ":" not in k} == {
        "last": None,
        "count": None,
        "seen_one": None,
        "seen_two": None,
    }
    assert await _artifact(runner, sid, "doc.txt") is None
