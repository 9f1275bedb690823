"""Generator tools: progress committed before the tool resumes, one output (every backend)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.core.tool_context import ToolContext
from adk_runtime.events import Event, EventActions
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel, function_call
from tests.backends import twin
from tests.llm.helpers import APP, USER, send, start, stored, texts


async def _stored_events(tool_context: ToolContext) -> list[Event]:
    ctx = tool_context.invocation_context
    session = await ctx.session_service.get_session(
        app_name=APP, user_id=USER, session_id=ctx.session.id
    )
    assert session is not None
    return session.events


async def test_progress_is_committed_before_the_tool_resumes(
    session_service: BaseSessionService,
) -> None:
    seen_in_store: list[list[str]] = []

    async def research(topic: str, tool_context: ToolContext) -> AsyncIterator[Any]:
        """Research a topic, reporting progress."""
        tool_context.state["user:searches"] = 1
        yield Event(message=f"Searching for {topic}…")
        stored_now = await _stored_events(tool_context)
        seen_in_store.append([e.author for e in stored_now])
        assert stored_now[-1].content is not None
        tool_context.state["found"] = 3
        yield Event(message="Reading 3 pages…")
        yield {"summary": f"{topic}: three sources agree"}

    model = ScriptedModel(replies=[function_call("research", {"topic": "tides"}), "Tides: done."])
    runner = await start(LlmAgent(name="helper", model=model, tools=[research]), session_service)
    events = await send(runner, "research tides")

    assert [e.author for e in events] == ["helper", "research", "research", "helper", "helper"]
    assert texts(events[1:3]) == ["Searching for tides…", "Reading 3 pages…"]
    # the store held the call and the first progress event when the tool went on
    assert seen_in_store == [["user", "helper", "research"]]
    # what the call wrote before each yield rides on that progress event; the rest on the reply
    assert events[1].actions.state_delta == {"user:searches": 1}
    assert events[2].actions.state_delta == {"found": 3}
    [response] = events[3].get_function_responses()
    assert response.response == {"summary": "tides: three sources agree"}
    assert events[3].actions.state_delta == {}
    call_id = events[0].get_function_calls()[0].id
    assert events[1].node_info.path == f"helper/research@{call_id}"
    assert events[1].invocation_id == events[0].invocation_id
    # the model sees the call and its output, never the progress
    sent = model.requests[1].contents
    assert [c.role for c in sent] == ["user", "model", "user"]
    assert sent[2].parts is not None
    assert sent[2].parts[0].function_response is not None
    session = await stored(runner)
    assert [e.id for e in session.events[1:]] == [e.id for e in events]
    assert session.state == {"user:searches": 1, "found": 3}
    # a later turn's request still leaves the progress out
    model.replies.append("Anything else?")
    await send(runner, "thanks")
    assert all(
        "Searching" not in (part.text or "")
        for content in model.requests[2].contents
        for part in content.parts or []
    )


async def test_a_sync_generator_steps_off_the_event_loop(
    session_service: BaseSessionService,
) -> None:
    def count(n: int) -> Iterator[Any]:
        """Count slowly."""
        for i in range(n):
            time.sleep(0.01)  # blocking: the session_service fixture fails it on the loop
            yield Event(message=f"{i + 1} of {n}")
        yield n

    model = ScriptedModel(replies=[function_call("count", {"n": 3}), "Counted."])
    runner = await start(LlmAgent(name="helper", model=model, tools=[count]), session_service)
    events = await send(runner, "count to three")
    assert texts(events[1:4]) == ["1 of 3", "2 of 3", "3 of 3"]
    assert events[4].get_function_responses()[0].response == {"result": 3}
    assert len((await stored(runner)).events) == 7


async def test_parallel_generator_tools_each_commit_their_progress(
    session_service: BaseSessionService,
) -> None:
    async def fetch(source: str) -> AsyncIterator[Any]:
        """Fetch from a source."""
        for step in ("connecting", "reading"):
            yield Event(message=f"{source}: {step}")
        yield {"source": source, "rows": 2}

    model = ScriptedModel(
        replies=[
            [function_call("fetch", {"source": "a"}), function_call("fetch", {"source": "b"})],
            "ok",
        ]
    )
    runner = await start(LlmAgent(name="helper", model=model, tools=[fetch]), session_service)
    events = await send(runner, "fetch both")
    progress = texts([e for e in events if e.author == "fetch"])
    assert sorted(progress) == ["a: connecting", "a: reading", "b: connecting", "b: reading"]
    assert progress.index("a: connecting") < progress.index("a: reading")
    responses = events[-2].get_function_responses()
    assert [r.response for r in responses] == [
        {"source": "a", "rows": 2},
        {"source": "b", "rows": 2},
    ]
    session = await stored(runner)
    assert [e.id for e in session.events[1:]] == [e.id for e in events]


async def test_a_failing_generator_keeps_its_committed_progress_only(
    session_service: BaseSessionService,
) -> None:
    async def migrate(tool_context: ToolContext) -> AsyncIterator[Any]:
        """Migrate the data."""
        tool_context.state["step"] = "copied"
        yield Event(message="copied")
        tool_context.state["step"] = "half-verified"
        raise RuntimeError("checksum mismatch")
        yield {"done": True}  # pragma: no cover

    model = ScriptedModel(replies=[function_call("migrate", {}), "The migration failed."])
    runner = await start(LlmAgent(name="helper", model=model, tools=[migrate]), session_service)
    events = await send(runner, "migrate")
    assert texts(events[1:2]) == ["copied"]
    assert events[2].get_function_responses()[0].response == {
        "error": "RuntimeError: checksum mismatch"
    }
    assert texts(events[-1:]) == ["The migration failed."]
    # committed progress stays; what was written after it is discarded
    assert (await stored(runner)).state == {"step": "copied"}


async def test_one_output_and_no_output(session_service: BaseSessionService) -> None:
    async def twice() -> AsyncIterator[Any]:
        """Answer twice."""
        yield {"a": 1}
        yield {"b": 2}

    async def silent() -> AsyncIterator[Any]:
        """Only report."""
        yield Event(message="working")

    model = ScriptedModel(
        replies=[[function_call("twice", {}), function_call("silent", {})], "noted"]
    )
    runner = await start(
        LlmAgent(name="helper", model=model, tools=[twice, silent]), session_service
    )
    events = await send(runner, "go")
    twice_response, silent_response = events[-2].get_function_responses()
    assert "yielded a second output" in twice_response.response["error"]  # type: ignore[index]
    assert silent_response.response == {"result": None}


async def test_a_progress_event_that_cannot_be_stored(session_service: BaseSessionService) -> None:
    class Opaque:
        pass

    async def dump(tool_context: ToolContext) -> AsyncIterator[Any]:
        """Dump the data."""
        yield Event(message="raw\x00bytes")  # NUL: cleaned, as in a model's reply
        tool_context.state["handle"] = Opaque()
        yield Event(message="saved the handle")  # its state cannot be stored: the call fails
        yield {"ok": True}  # pragma: no cover

    model = ScriptedModel(replies=[function_call("dump", {}), "It failed."])
    runner = await start(LlmAgent(name="helper", model=model, tools=[dump]), session_service)
    events = await send(runner, "dump it")
    assert texts(events[1:2]) == ["raw\ufffdbytes"]
    error = events[2].get_function_responses()[0].response["error"]  # type: ignore[index]
    assert "state['handle']" in error
    assert "Opaque" in error
    session = await stored(runner)
    assert [e.id for e in session.events[1:]] == [e.id for e in events]
    assert session.state == {}


class Crash(BaseException):
    """What a process being killed leaves: nothing catches it."""


async def test_a_crash_after_progress_reruns_the_call_on_resume(
    session_service: BaseSessionService,
) -> None:
    async def export(tool_context: ToolContext) -> AsyncIterator[Any]:
        """Export the report."""
        yield Event(message=f"attempt {tool_context.attempt}: rendering")
        if tool_context.attempt == 1:
            raise Crash
        yield {"url": "/reports/1.pdf", "attempt": tool_context.attempt}

    def agent() -> LlmAgent:
        model = ScriptedModel(replies=[function_call("export", {}, id="call-export"), "Exported."])
        return LlmAgent(name="helper", model=model, tools=[export])

    runner = await start(agent(), session_service)
    with pytest.raises(Crash):
        await send(runner, "export it")
    [crashed] = await session_service.list_interrupted_invocations(app_name=APP)
    assert texts((await stored(runner)).events[2:]) == ["attempt 1: rendering"]

    async with twin(session_service) as replica:
        fresh = agent()  # another replica: the same app, a fresh model
        assert isinstance(fresh.model, ScriptedModel)
        fresh.model.replies.pop(0)  # the call is committed: the resumed run starts at the tool
        resumed = Runner(app_name=APP, agent=fresh, session_service=replica)
        events = [
            event
            async for event in resumed.run_async(
                user_id=USER, session_id="s1", invocation_id=crashed.invocation_id
            )
        ]
    assert texts(events[:1]) == ["attempt 2: rendering"]
    assert events[1].get_function_responses()[0].response == {
        "url": "/reports/1.pdf",
        "attempt": 2,
    }
    assert texts(events[-1:]) == ["Exported."]
    session = await stored(runner)
    assert [e.author for e in session.events] == [
        "user",
        "helper",
        "export",
        "export",
        "helper",
        "helper",
    ]


async def test_the_same_event_yielded_twice_is_two_events(
    session_service: BaseSessionService,
) -> None:
    async def tick() -> AsyncIterator[Any]:
        """Tick twice."""
        event = Event(message="tick")
        yield event
        yield event
        yield "ticked"

    model = ScriptedModel(replies=[function_call("tick", {}), "done"])
    runner = await start(LlmAgent(name="helper", model=model, tools=[tick]), session_service)
    events = await send(runner, "tick")
    assert texts(events[1:3]) == ["tick", "tick"]
    assert events[1].id != events[2].id
    session = await stored(runner)
    assert [e.id for e in session.events[1:]] == [e.id for e in events]  # all of them stored


async def test_a_progress_event_that_would_act_fails_the_call(
    session_service: BaseSessionService,
) -> None:
    acting = [
        EventActions(transfer_to_agent="other"),
        EventActions(rewind_before_invocation_id="e-1"),
        EventActions(escalate=True),
    ]

    async def meddle(kind: int, tool_context: ToolContext) -> AsyncIterator[Any]:
        """Report, wrongly."""
        tool_context.state["meddled"] = kind
        if kind < len(acting):
            yield Event(message="acting", actions=acting[kind])
        else:
            call = types.FunctionCall(id="x", name="approve", args={})
            yield Event(content=types.Content(role="model", parts=[types.Part(function_call=call)]))
        yield {"ok": True}  # pragma: no cover

    calls = [function_call("meddle", {"kind": k}) for k in range(len(acting) + 1)]
    model = ScriptedModel(replies=[calls, "Those failed."])
    runner = await start(LlmAgent(name="helper", model=model, tools=[meddle]), session_service)
    events = await send(runner, "go")
    assert [e.author for e in events] == ["helper", "helper", "helper"]  # nothing of the tool
    errors = [r.response["error"] for r in events[1].get_function_responses()]  # type: ignore[index]
    assert ["transfer_to_agent" in errors[0], "rewind" in errors[1], "escalate" in errors[2]] == [
        True,
        True,
        True,
    ]
    assert "function calls" in errors[3]
    session = await stored(runner)
    assert len(session.events) == 4
    assert session.state == {}
