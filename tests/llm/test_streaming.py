"""Streaming (SSE): partial chunks are yielded, only the aggregated response is stored."""

from __future__ import annotations

from google.genai import types

from adk_runtime.agents import LlmAgent, RunConfig, StreamingMode
from adk_runtime.models import LlmResponse
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel, function_call
from tests.llm.helpers import send, start, stored, texts

SSE = RunConfig(streaming_mode=StreamingMode.SSE)


async def test_stream_yields_chunks_and_stores_final(session_service: BaseSessionService) -> None:
    agent = LlmAgent(name="a", model=ScriptedModel(replies=["the quick fox"]), output_key="out")
    runner = await start(agent, session_service)
    events = await send(runner, "hi", run_config=SSE)
    assert [e.partial for e in events] == [True, True, True, None]
    assert texts(events) == ["the ", "quick ", "fox", "the quick fox"]
    assert all(not e.actions.state_delta for e in events[:-1])
    session = await stored(runner)
    assert texts(session.events) == ["hi", "the quick fox"]
    assert session.events[-1].id == events[-1].id
    assert session.state == {"out": "the quick fox"}


async def test_function_calls_in_partial_chunks_never_run(
    session_service: BaseSessionService,
) -> None:
    runs: list[str] = []

    def act(what: str) -> str:
        """Do something."""
        runs.append(what)
        return "done"

    def chunk(part: types.Part, partial: bool) -> LlmResponse:
        return LlmResponse(content=types.Content(role="model", parts=[part]), partial=partial)

    stream = [
        chunk(function_call("act", {"what": "draft"}, id="p1"), True),
        chunk(function_call("act", {"what": "final"}, id="f1"), False),
    ]
    model = ScriptedModel(replies=[stream, "ok"])
    runner = await start(LlmAgent(name="a", model=model, tools=[act]), session_service)
    events = await send(runner, "go", run_config=SSE)
    assert runs == ["final"]
    assert events[0].partial is True
    session = await stored(runner)
    calls = [c.id for e in session.events for c in e.get_function_calls()]
    assert calls == ["f1"]
