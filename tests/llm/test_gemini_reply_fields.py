"""What a Gemini reply carries reaches the stored event; a turn that says nothing is an error."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from adk_runtime.agents import LlmAgent, RunConfig, StreamingMode
from adk_runtime.models import Gemini
from adk_runtime.models._empty_reply import EMPTY_REPLY_ERROR_CODE
from adk_runtime.sessions import BaseSessionService
from tests.llm.fake_gemini import FakeGemini, parts_body, serving, text_body
from tests.llm.helpers import send, start, stored, texts

LOGPROBS = {
    "chosenCandidates": [{"token": "Hi", "tokenId": 9, "logProbability": -0.125}],
    "topCandidates": [{"candidates": [{"token": "Hi", "tokenId": 9, "logProbability": -0.125}]}],
    "logProbabilitySum": -0.125,
}


@pytest.fixture
async def fake(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeGemini]:
    async with serving(monkeypatch) as server:
        yield server


def _agent(fake: FakeGemini) -> LlmAgent:
    model = Gemini(model="gemini-2.5-flash", base_url=fake.base_url)
    fake.clients.append(model)
    return LlmAgent(name="a", model=model)


def _empty_stop() -> dict[str, Any]:
    body = parts_body([])
    body["candidates"][0]["content"] = {"role": "model"}
    return body


async def test_logprobs_and_citations_of_a_reply_are_stored_with_its_event(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    body = text_body("Hi")
    body["candidates"][0] |= {
        "avgLogprobs": -0.125,
        "logprobsResult": LOGPROBS,
        "citationMetadata": {"citations": [{"startIndex": 0, "endIndex": 2, "uri": "u"}]},
    }
    fake.replies.append((200, body))
    runner = await start(_agent(fake), session_service)
    [event] = await send(runner, "hello")
    [kept] = (await stored(runner)).events[1:]
    for seen in (event, kept):
        assert seen.avg_logprobs == -0.125
        assert seen.logprobs_result is not None
        assert seen.logprobs_result.log_probability_sum == -0.125
        assert seen.logprobs_result.chosen_candidates is not None
        assert seen.logprobs_result.chosen_candidates[0].token_id == 9
        assert seen.citation_metadata is not None
    assert kept == event


@pytest.mark.parametrize(
    "parts",
    [[], [{"text": "pondering", "thought": True}], [{"text": "  "}]],
    ids=["no-parts", "thought-only", "blank"],
)
async def test_a_turn_that_stops_without_an_answer_is_a_stored_error_event(
    fake: FakeGemini, session_service: BaseSessionService, parts: list[dict[str, Any]]
) -> None:
    fake.replies.append((200, parts_body(parts) if parts else _empty_stop()))
    runner = await start(_agent(fake), session_service)
    [event] = await send(runner, "hello")
    assert event.error_code == EMPTY_REPLY_ERROR_CODE
    assert event.error_message
    assert event.is_final_response()
    assert (await stored(runner)).events[-1] == event


async def test_a_stream_that_ends_with_an_empty_stop_chunk_is_no_error(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    fake.replies.append(("sse", [text_body("Good "), text_body("day"), _empty_stop()]))
    runner = await start(_agent(fake), session_service)
    events = await send(runner, "hi", run_config=RunConfig(streaming_mode=StreamingMode.SSE))
    final = [event for event in events if not event.partial]
    assert [event.error_code for event in final] == [None]
    assert texts(final) == ["Good day"]
