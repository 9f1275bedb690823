"""``turn_complete`` marks the model's last response of a turn, never a call for tools.

google-adk's web UI shows "Turn complete" on every event that says so: a model that marked
its function calls made it show one before every tool call.
"""

from __future__ import annotations

from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.demo import build_agent
from adk_runtime.events import Event
from adk_runtime.sessions import InMemorySessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.utils.streaming_utils import StreamingResponseAggregator
from tests.llm.helpers import send, start


def lookup(city: str) -> str:
    """Look a city up."""
    return f"sunny in {city}"


def _marks(events: list[Event]) -> list[tuple[str, bool | None]]:
    """Each event's kind (a call, a tool's response, text) and its ``turn_complete``."""
    found = []
    for event in events:
        calls, answers = event.get_function_calls(), event.get_function_responses()
        kind = "call" if calls else "response" if answers else "text"
        found.append((kind, event.turn_complete))
    return found


async def test_the_scripted_models_call_is_not_the_end_of_its_turn() -> None:
    model = ScriptedModel(replies=[function_call("lookup", {"city": "Oslo"}), "Sunny."])
    agent = LlmAgent(name="weather", model=model, tools=[lookup])
    runner = await start(agent, InMemorySessionService())
    events = await send(runner, "weather?")
    assert _marks(events) == [("call", None), ("response", None), ("text", True)]


async def test_the_demo_models_call_is_not_the_end_of_its_turn() -> None:
    runner = await start(build_agent(), InMemorySessionService())
    events = await send(runner, "remember tea is hot")
    assert _marks(events) == [("call", None), ("response", None), ("text", True)]


async def test_a_streamed_text_reply_ends_the_turn() -> None:
    aggregator = StreamingResponseAggregator()
    for text in ("Sun", "ny."):
        chunk = types.GenerateContentResponse(
            candidates=[
                types.Candidate(content=types.Content(role="model", parts=[types.Part(text=text)]))
            ]
        )
        _ = [r async for r in aggregator.process_response(chunk)]
    complete = aggregator.close()
    assert complete is not None
    assert complete.turn_complete is True
