"""Event compaction: summaries replace older events in what the model sees, on every backend."""

from __future__ import annotations

import logging
import math

import pydantic
import pytest
from google.genai import types

from adk_runtime.agents import BaseAgent, LlmAgent
from adk_runtime.apps.app import App, EventsCompactionConfig
from adk_runtime.apps.base_events_summarizer import BaseEventsSummarizer
from adk_runtime.apps.compaction import events_to_summarize
from adk_runtime.apps.llm_event_summarizer import LlmEventSummarizer
from adk_runtime.errors import ConfigurationError, SerializationError
from adk_runtime.events import Event, EventActions
from adk_runtime.events.compaction_view import view
from adk_runtime.events.event_actions import EventCompaction
from adk_runtime.models import Gemini
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.models.llm_response import LlmResponse
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService, InMemorySessionService, Session
from adk_runtime.testing import ScriptedModel, function_call
from tests.llm.fake_gemini import serving, text_body
from tests.llm.helpers import APP, USER, send, stored, texts


def _text(content: types.Content | None) -> str:
    return "".join(part.text or "" for part in (content.parts or [])) if content else ""


def _request_texts(model: ScriptedModel, index: int = -1) -> list[str]:
    return [_text(content) for content in model.requests[index].contents]


class Recording(BaseEventsSummarizer):
    """Summarises the n-th time into ``"S<n>"`` and keeps the events it was given."""

    def __init__(self) -> None:
        self.calls: list[list[Event]] = []

    async def maybe_summarize_events(self, *, events: list[Event]) -> Event | None:
        self.calls.append(events)
        return Event(
            author="user",
            invocation_id=f"compaction-{len(self.calls)}",
            actions=EventActions(
                compaction=EventCompaction(
                    start_timestamp=min(event.timestamp for event in events),
                    end_timestamp=max(event.timestamp for event in events),
                    compacted_content=types.Content(
                        role="model", parts=[types.Part(text=f"S{len(self.calls)}")]
                    ),
                )
            ),
        )


async def _runner(
    service: BaseSessionService, agent: BaseAgent, config: EventsCompactionConfig
) -> Runner:
    app = App(name=APP, root_agent=agent, events_compaction_config=config)
    runner = Runner(app=app, session_service=service)
    await service.create_session(app_name=APP, user_id=USER, session_id="s1")
    return runner


def _summaries(session: Session) -> list[EventCompaction]:
    return [e.actions.compaction for e in session.events if e.actions.compaction is not None]


async def test_sliding_window_summarises_every_interval_and_the_model_sees_the_summary(
    session_service: BaseSessionService,
) -> None:
    model = ScriptedModel(handler=lambda request: f"answer {len(model.requests)}")
    summarizer = Recording()
    config = EventsCompactionConfig(summarizer=summarizer, compaction_interval=2, overlap_size=1)
    runner = await _runner(session_service, LlmAgent(name="a", model=model), config)

    await send(runner, "one")
    assert summarizer.calls == []  # one invocation is not enough
    answered = await send(runner, "two")
    assert texts(answered) == ["answer 2"]  # the caller gets the answer, not the summary
    assert [_text(e.content) for e in summarizer.calls[0]] == ["one", "answer 1", "two", "answer 2"]

    session = await stored(runner)
    assert len(session.events) == 5  # every event stays stored, the summary is one more
    (summary,) = _summaries(session)
    assert summary.start_timestamp == session.events[0].timestamp
    assert summary.end_timestamp == session.events[3].timestamp
    assert _text(summary.compacted_content) == "S1"

    await send(runner, "three")
    assert _request_texts(model) == ["S1", "three"]
    assert model.requests[-1].contents[0].role == "model"
    assert len(summarizer.calls) == 1  # one new invocation since the summary

    await send(runner, "four")
    # the window: invocations 3 and 4, and invocation 2 again (overlap_size=1)
    assert [_text(e.content) for e in summarizer.calls[1]] == [
        "two",
        "answer 2",
        "three",
        "answer 3",
        "four",
        "answer 4",
    ]
    await send(runner, "five")
    # the two summaries overlap (invocation 2): both count, in the order of their ranges
    assert _request_texts(model) == ["S1", "S2", "five"]


async def test_token_threshold_keeps_one_rolling_summary_and_the_last_events(
    session_service: BaseSessionService,
) -> None:
    def reply(request: LlmRequest) -> LlmResponse:
        return LlmResponse(
            content=types.Content(
                role="model", parts=[types.Part(text=f"answer {len(model.requests)}")]
            ),
            usage_metadata=types.GenerateContentResponseUsageMetadata(prompt_token_count=1000),
        )

    model = ScriptedModel(handler=reply)
    summarizer = Recording()
    config = EventsCompactionConfig(
        summarizer=summarizer, token_threshold=100, event_retention_size=2
    )
    runner = await _runner(session_service, LlmAgent(name="a", model=model), config)
    await send(runner, "one")
    assert summarizer.calls == []  # two events, both kept
    for text in ["two", "three", "four"]:
        await send(runner, text)

    assert len(summarizer.calls) >= 3
    # every summary after the first starts from the one before it...
    for number, events in enumerate(summarizer.calls[1:], start=1):
        assert _text(events[0].content) == f"S{number}"
    session = await stored(runner)
    summaries = _summaries(session)
    # ...and covers its range too, so only the latest one counts
    assert all(s.start_timestamp == session.events[0].timestamp for s in summaries)
    seen = _request_texts(model)
    assert seen[0] == f"S{len(summarizer.calls) - 1}"  # the one before this request's turn
    assert sum(text.startswith("S") for text in seen) == 1
    assert seen[-1] == "four"
    # the raw events kept: the last two before the message, never split from a summary
    assert len(seen) <= 1 + 2 + 1


async def test_a_reported_prompt_token_count_is_what_the_threshold_is_checked_against() -> None:
    def reply(request: LlmRequest) -> LlmResponse:
        return LlmResponse(
            content=types.Content(role="model", parts=[types.Part(text="ok")]),
            usage_metadata=types.GenerateContentResponseUsageMetadata(
                prompt_token_count=5000 if len(model.requests) == 2 else 10
            ),
        )

    model = ScriptedModel(handler=reply)
    summarizer = Recording()
    config = EventsCompactionConfig(
        summarizer=summarizer, token_threshold=1000, event_retention_size=0
    )
    runner = await _runner(InMemorySessionService(), LlmAgent(name="a", model=model), config)
    await send(runner, "first")
    assert summarizer.calls == []  # the model reported 10 prompt tokens
    await send(runner, "second")
    assert [_text(e.content) for e in summarizer.calls[0]] == ["first", "ok", "second", "ok"]


def lookup(city: str) -> str:
    """Look a city up."""
    return f"{city}: sunny"


async def test_a_summary_never_separates_a_function_call_from_its_response() -> None:
    model = ScriptedModel(
        replies=[function_call("lookup", {"city": "Rome"}, id="c1"), "It is sunny."]
    )
    summarizer = Recording()
    # retention 1 would cut between the call and its response: the cut moves before the call
    config = EventsCompactionConfig(
        summarizer=summarizer, token_threshold=1, event_retention_size=2
    )
    runner = await _runner(
        InMemorySessionService(), LlmAgent(name="a", model=model, tools=[lookup]), config
    )
    await send(runner, "weather in Rome?")
    session = await stored(runner)
    events = [e for e in session.events if e.actions.compaction is None]
    # user, call, response, answer: keeping the last two leaves the response without its
    # call, so only the user's message is summarised
    assert [e.get_function_calls() != [] for e in events] == [False, True, False, False]
    assert [_text(e.content) for e in summarizer.calls[0]] == ["weather in Rome?"]


async def test_a_call_still_waiting_for_the_user_is_never_summarised() -> None:
    waiting = Event(
        invocation_id="i1",
        author="a",
        content=types.Content(role="model", parts=[function_call("ask", {}, id="c1")]),
        long_running_tool_ids={"c1"},
        timestamp=2.0,
    )
    events = [
        Event(invocation_id="i1", author="user", content=_content("user", "hi"), timestamp=1.0),
        waiting,
        Event(invocation_id="i2", author="user", content=_content("user", "x"), timestamp=3.0),
        Event(invocation_id="i2", author="a", content=_content("model", "y"), timestamp=4.0),
    ]
    config = EventsCompactionConfig(compaction_interval=2, overlap_size=0)
    chosen = events_to_summarize(config, events)
    assert [e.timestamp for e in chosen] == [1.0]  # the prefix ends before the open call

    # a call of an older invocation that can never be answered does not block it
    dead = waiting.model_copy(update={"long_running_tool_ids": None})
    chosen = events_to_summarize(config, [events[0], dead, *events[2:]])
    assert [e.timestamp for e in chosen] == [1.0, 2.0, 3.0, 4.0]


def _content(role: str, text: str) -> types.Content:
    return types.Content(role=role, parts=[types.Part(text=text)])


def _summary_event(start: float, end: float, text: str, at: float = 100.0) -> Event:
    return Event(
        author="user",
        invocation_id=f"c-{text}",
        timestamp=at,
        actions=EventActions(
            compaction=EventCompaction(
                start_timestamp=start, end_timestamp=end, compacted_content=_content("model", text)
            )
        ),
    )


def test_the_view_hides_only_events_committed_before_the_summary() -> None:
    def raw(ts: float, text: str) -> Event:
        return Event(
            author="user", invocation_id=text, timestamp=ts, content=_content("user", text)
        )

    events = [
        raw(1.0, "a"),
        raw(2.0, "b"),
        _summary_event(1.0, 2.0, "S"),
        raw(1.5, "late"),  # committed after the summary by a replica with a slow clock
        raw(3.0, "c"),
    ]
    shown = view(events, "agent")
    assert [_text(e.content) for e in shown] == ["S", "late", "c"]
    assert shown[0].author == "agent"


def test_a_wider_summary_supersedes_the_ones_inside_it_and_overlaps_both_count() -> None:
    def raw(ts: float) -> Event:
        return Event(
            author="user", invocation_id=str(ts), timestamp=ts, content=_content("user", str(ts))
        )

    inner = _summary_event(1.0, 2.0, "inner")
    wide = _summary_event(1.0, 4.0, "wide")
    overlapping = _summary_event(3.0, 6.0, "overlap")
    events = [raw(1.0), raw(2.0), inner, raw(3.0), raw(4.0), wide, raw(5.0), raw(6.0)]
    assert [_text(e.content) for e in view(events, "a")] == ["wide", "5.0", "6.0"]
    assert [_text(e.content) for e in view([*events, overlapping, raw(7.0)], "a")] == [
        "wide",
        "overlap",
        "7.0",
    ]


async def test_a_rewind_past_a_summary_brings_the_events_back(
    session_service: BaseSessionService,
) -> None:
    model = ScriptedModel(handler=lambda request: f"answer {len(model.requests)}")
    config = EventsCompactionConfig(summarizer=Recording(), compaction_interval=2, overlap_size=0)
    runner = await _runner(session_service, LlmAgent(name="a", model=model), config)
    await send(runner, "one")
    await send(runner, "two")
    session = await stored(runner)
    second = session.events[2].invocation_id
    await runner.rewind_async(user_id=USER, session_id="s1", rewind_before_invocation_id=second)
    await send(runner, "again")
    assert _request_texts(model) == ["one", "answer 1", "again"]


async def test_a_failing_summarizer_leaves_the_history_and_the_turn_succeeds(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Broken(BaseEventsSummarizer):
        async def maybe_summarize_events(self, *, events: list[Event]) -> Event | None:
            raise RuntimeError("secret payload text")

    model = ScriptedModel(handler=lambda request: "fine")
    config = EventsCompactionConfig(summarizer=Broken(), compaction_interval=1, overlap_size=0)
    runner = await _runner(InMemorySessionService(), LlmAgent(name="a", model=model), config)
    with caplog.at_level(logging.WARNING):
        assert texts(await send(runner, "hello")) == ["fine"]
    session = await stored(runner)
    assert _summaries(session) == []
    assert "RuntimeError" in caplog.text
    assert "secret payload text" not in caplog.text


async def test_the_default_summarizer_is_the_root_agents_model(
    session_service: BaseSessionService,
) -> None:
    model = ScriptedModel(replies=["first answer", "The user greeted; the agent answered."])
    config = EventsCompactionConfig(compaction_interval=1, overlap_size=0)
    runner = await _runner(session_service, LlmAgent(name="a", model=model), config)
    await send(runner, "hello")
    prompt = _request_texts(model)[0]
    assert "user: hello" in prompt
    assert "a: first answer" in prompt
    session = await stored(runner)
    (summary,) = _summaries(session)
    assert _text(summary.compacted_content) == "The user greeted; the agent answered."
    assert summary.compacted_content.role == "model"
    # read back from the store as it was written
    assert session.events[-1].author == "user"
    assert session.events[-1].content is None


async def test_llm_event_summarizer_writes_tools_and_cuts_long_answers() -> None:
    model = ScriptedModel(replies=["summary"])
    summarizer = LlmEventSummarizer(llm=model)
    call = function_call("lookup", {"city": "Rome"}, id="c1")
    answer = types.Part(
        function_response=types.FunctionResponse(
            id="c1", name="lookup", response={"result": "z" * 5000}
        )
    )
    events = [
        Event(author="user", content=_content("user", "weather?"), timestamp=1.0),
        Event(author="a", content=types.Content(role="model", parts=[call]), timestamp=2.0),
        Event(author="user", content=types.Content(role="user", parts=[answer]), timestamp=3.0),
    ]
    summary = await summarizer.maybe_summarize_events(events=events)
    assert summary is not None
    assert summary.actions.compaction is not None
    assert summary.actions.compaction.start_timestamp == 1.0
    assert summary.actions.compaction.end_timestamp == 3.0
    prompt = _request_texts(model)[0]
    assert 'a called lookup({"city": "Rome"})' in prompt
    # the answer's JSON is 5,014 characters: its first 2,000 are written, the rest counted
    assert '{"result": "' + "z" * 1988 + "… (3014 more characters left out)" in prompt
    assert await summarizer.maybe_summarize_events(events=[]) is None
    with pytest.raises(ValueError, match="conversation_history"):
        LlmEventSummarizer(llm=model, prompt_template="no placeholder")


async def test_credentials_the_user_gave_never_reach_the_summarizer() -> None:
    """Found while checking where a credential answer goes: the summarizer's prompt held
    every function call and response, the user's API key or OAuth2 code included, so it
    went to the summarizing model and could end up in the stored summary."""
    model = ScriptedModel(replies=["summary"])
    summarizer = LlmEventSummarizer(llm=model)
    request = function_call(
        "adk_request_credential",
        {"functionCallId": "c1", "authConfig": {"authScheme": {"type": "apiKey"}}},
        id="adk-r1",
    )
    answer = types.FunctionResponse(
        id="adk-r1", name="adk_request_credential", response={"result": "USER-KEY-123"}
    )
    events = [
        Event(author="user", content=_content("user", "balance?"), timestamp=1.0),
        Event(author="a", content=types.Content(role="model", parts=[request]), timestamp=2.0),
        Event(
            author="user",
            content=types.Content(role="user", parts=[types.Part(function_response=answer)]),
            timestamp=3.0,
        ),
        Event(author="a", content=_content("model", "You have 42."), timestamp=4.0),
    ]

    assert await summarizer.maybe_summarize_events(events=events) is not None

    prompt = _request_texts(model)[0]
    assert "USER-KEY-123" not in prompt
    assert "adk_request_credential" not in prompt
    assert "user: balance?" in prompt
    assert "a: You have 42." in prompt


def test_the_config_needs_whole_trigger_pairs_and_a_summarizer_it_can_find() -> None:
    with pytest.raises(pydantic.ValidationError, match="overlap_size together"):
        EventsCompactionConfig(compaction_interval=2)
    with pytest.raises(pydantic.ValidationError, match="event_retention_size together"):
        EventsCompactionConfig(token_threshold=100)
    with pytest.raises(pydantic.ValidationError, match="needs a trigger"):
        EventsCompactionConfig()
    with pytest.raises(pydantic.ValidationError):
        EventsCompactionConfig(compaction_interval=0, overlap_size=0)

    class Plain(BaseAgent):
        pass

    with pytest.raises(ConfigurationError, match="summarizer"):
        App(
            name="app",
            root_agent=Plain(name="p"),
            events_compaction_config=EventsCompactionConfig(compaction_interval=1, overlap_size=0),
        )


@pytest.mark.parametrize(("start", "end"), [(math.nan, 1.0), (1.0, math.inf)])
def test_a_range_json_cannot_hold_is_refused(start: float, end: float) -> None:
    with pytest.raises(pydantic.ValidationError):
        EventCompaction(
            start_timestamp=start, end_timestamp=end, compacted_content=_content("model", "s")
        )


async def test_a_range_made_non_finite_or_inverted_after_construction_is_never_stored_unreadable(
    session_service: BaseSessionService,
) -> None:
    session = await session_service.create_session(app_name=APP, user_id=USER)
    broken = _summary_event(1.0, 2.0, "nan")
    assert broken.actions.compaction is not None
    broken.actions.compaction.end_timestamp = math.inf  # no validation on assignment
    with pytest.raises(SerializationError, match="end_timestamp"):
        await session_service.append_event(session, broken)

    raw = Event(author="user", invocation_id="i1", content=_content("user", "kept"), timestamp=1.5)
    await session_service.append_event(session, raw)
    inverted = _summary_event(1.0, 2.0, "inverted")
    assert inverted.actions.compaction is not None
    inverted.actions.compaction.start_timestamp = 3.0
    await session_service.append_event(session, inverted)
    back = await session_service.get_session(app_name=APP, user_id=USER, session_id=session.id)
    assert back is not None
    assert [e.id for e in back.events] == [raw.id, inverted.id]  # read back as written
    # an inverted range stands for nothing: the event stays in what the model sees
    assert [_text(e.content) for e in view(back.events, "a")] == ["kept"]


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


async def test_a_token_threshold_reached_inside_an_invocation_is_summarised_before_the_next_call(
    session_service: BaseSessionService,
) -> None:
    script: list[tuple[types.Part | str, int]] = [
        ("hello", 10),
        (function_call("add", {"a": 1, "b": 2}, id="c1"), 50),
        (function_call("add", {"a": 3, "b": 4}, id="c2"), 150),  # over the threshold
        ("done", 40),
    ]

    def reply(request: LlmRequest) -> LlmResponse:
        part, tokens = script[len(model.requests) - 1]
        content = types.Content(
            role="model", parts=[types.Part(text=part) if isinstance(part, str) else part]
        )
        return LlmResponse(
            content=content,
            usage_metadata=types.GenerateContentResponseUsageMetadata(prompt_token_count=tokens),
        )

    model = ScriptedModel(handler=reply)
    summarizer = Recording()
    config = EventsCompactionConfig(
        summarizer=summarizer, token_threshold=100, event_retention_size=2
    )
    runner = await _runner(session_service, LlmAgent(name="a", model=model, tools=[add]), config)
    await send(runner, "hi")
    events = await send(runner, "compute")

    # the summary is committed and yielded between the tool's answer and the next model call
    kinds = ["summary" if e.actions.compaction else _text(e.content) or "tool" for e in events]
    assert kinds == ["tool", "tool", "tool", "tool", "summary", "done"]  # calls, answers
    summarized = [e.get_function_calls() or _text(e.content) for e in summarizer.calls[0]]
    assert summarized[:3] == ["hi", "hello", "compute"]
    assert len(summarized) == 5  # the first call and its answer; the second pair stays
    last_request = model.requests[-1].contents
    assert _text(last_request[0]) == "S1"
    assert [c.parts[0].function_call.id for c in last_request[1:2] if c.parts] == ["c2"]  # type: ignore[union-attr]
    assert len(summarizer.calls) == 1  # the last request was under the threshold again
    session = await stored(runner)
    assert len(_summaries(session)) == 1


async def test_on_gemini_the_agents_model_writes_the_summary_and_the_next_request_carries_it(
    monkeypatch: pytest.MonkeyPatch, session_service: BaseSessionService
) -> None:
    async with serving(monkeypatch) as fake:
        model = Gemini(
            model="gemini-2.5-flash",
            base_url=fake.base_url,
            retry_options=types.HttpRetryOptions(attempts=1),
        )
        fake.clients.append(model)
        replies = ["Rome it is.", "The user lives in Rome.", "You live in Rome.", "Rome, twice."]
        for reply in replies:
            fake.replies.append((200, text_body(reply)))
        config = EventsCompactionConfig(compaction_interval=1, overlap_size=0)
        runner = await _runner(session_service, LlmAgent(name="a", model=model), config)
        await send(runner, "I live in Rome.")
        events = await send(runner, "Where do I live?")

    assert texts(events) == ["You live in Rome."]
    summary_request = fake.requests[1][1]
    prompt = summary_request["contents"][0]["parts"][0]["text"]
    assert "user: I live in Rome." in prompt
    assert "a: Rome it is." in prompt
    assert "tools" not in summary_request  # the summary request carries the events only
    last = fake.requests[2][1]["contents"]
    assert last[0] == {"role": "model", "parts": [{"text": "The user lives in Rome."}]}
    assert last[-1]["parts"][0]["text"] == "Where do I live?"
    session = await stored(runner)
    # the second invocation is summarised too, after its answer, from the first summary on
    assert [_text(s.compacted_content) for s in _summaries(session)] == [
        "The user lives in Rome.",
        "Rome, twice.",
    ]
    assert "Where do I live?" in fake.requests[3][1]["contents"][0]["parts"][0]["text"]


async def test_a_summary_too_large_to_store_is_skipped_and_the_turn_succeeds(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    class Verbose(Recording):
        async def maybe_summarize_events(self, *, events: list[Event]) -> Event | None:
            summary = await super().maybe_summarize_events(events=events)
            assert summary is not None
            assert summary.actions.compaction is not None
            summary.actions.compaction.compacted_content = _content("model", "x" * 5000)
            return summary

    monkeypatch.setattr("adk_runtime.events._limits.MAX_EVENT_BYTES", 3000)
    model = ScriptedModel(handler=lambda request: "fine")
    config = EventsCompactionConfig(summarizer=Verbose(), compaction_interval=1, overlap_size=0)
    runner = await _runner(InMemorySessionService(), LlmAgent(name="a", model=model), config)
    with caplog.at_level(logging.WARNING):
        assert texts(await send(runner, "hello")) == ["fine"]
    assert _summaries(await stored(runner)) == []
    assert "cannot be stored" in caplog.text
    assert "x" * 100 not in caplog.text


async def test_a_summary_that_cannot_be_committed_leaves_the_turn_standing(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from adk_runtime.errors import StaleSessionError

    service = InMemorySessionService()
    model = ScriptedModel(handler=lambda request: "fine")
    config = EventsCompactionConfig(summarizer=Recording(), compaction_interval=1, overlap_size=0)
    runner = await _runner(service, LlmAgent(name="a", model=model), config)
    append = service.append_event

    async def refusing(session: Session, event: Event) -> Event:
        if event.actions.compaction is not None:
            raise StaleSessionError()
        return await append(session, event)

    monkeypatch.setattr(service, "append_event", refusing)
    with caplog.at_level(logging.WARNING):
        assert texts(await send(runner, "hello")) == ["fine"]
    assert "StaleSessionError" in caplog.text
    assert [e.author for e in (await stored(runner)).events] == ["user", "a"]
