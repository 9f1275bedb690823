"""google-adk's ``apps.compaction`` functions, over our compaction, on every backend."""

from __future__ import annotations

import pytest
from google.genai import types
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from adk_runtime.agents import LlmAgent
from adk_runtime.apps import _compaction_trace
from adk_runtime.apps import compaction as api
from adk_runtime.apps.app import App, EventsCompactionConfig
from adk_runtime.apps.compaction import (
    _latest_prompt_token_count,
    _run_compaction_for_sliding_window,
    _run_compaction_for_token_threshold,
    _run_compaction_for_token_threshold_config,
    events_to_summarize,
)
from adk_runtime.errors import StaleSessionError
from adk_runtime.events import Event, EventActions
from adk_runtime.events.compaction_view import view
from adk_runtime.events.event_actions import EventCompaction
from adk_runtime.sessions import BaseSessionService, InMemorySessionService, Session
from adk_runtime.testing import ScriptedModel, function_call
from tests.llm.helpers import APP, USER
from tests.llm.test_compaction import Recording


def _content(role: str, text: str, *, thought: bool = False) -> types.Content:
    return types.Content(role=role, parts=[types.Part(text=text, thought=thought or None)])


def _event(invocation: str, text: str, at: float, tokens: int | None = None) -> Event:
    usage = types.GenerateContentResponseUsageMetadata(prompt_token_count=tokens)
    return Event(
        invocation_id=invocation,
        author="a",
        content=_content("model", text),
        timestamp=at,
        usage_metadata=usage if tokens is not None else None,
    )


def _summary(start: float, end: float, text: str, at: float) -> Event:
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


def _texts(events: list[Event]) -> list[str]:
    return ["".join(p.text or "" for p in (e.content.parts or [])) for e in events if e.content]


def _app(config: EventsCompactionConfig) -> App:
    return App(
        name=APP,
        root_agent=LlmAgent(name="a", model=ScriptedModel()),
        events_compaction_config=config,
    )


async def _session(service: BaseSessionService, events: list[Event]) -> Session:
    session = await service.create_session(app_name=APP, user_id=USER, session_id="s1")
    for event in events:
        await service.append_event(session, event)
    return session


async def _reload(service: BaseSessionService) -> Session:
    session = await service.get_session(app_name=APP, user_id=USER, session_id="s1")
    assert session is not None
    return session


async def test_the_sliding_window_function_yields_the_summary_and_the_caller_commits_it(
    session_service: BaseSessionService,
) -> None:
    summarizer = Recording()
    app = _app(EventsCompactionConfig(summarizer=summarizer, compaction_interval=2, overlap_size=0))
    session = await _session(session_service, [_event("i1", "one", 1.0), _event("i2", "two", 2.0)])

    yielded = [e async for e in _run_compaction_for_sliding_window(app, session, session_service)]

    assert len(yielded) == 1
    assert yielded[0].actions.compaction is not None
    assert [e.actions.compaction for e in (await _reload(session_service)).events] == [None, None]
    for event in yielded:  # as google-adk's Runner does with what it yields
        await session_service.append_event(session=session, event=event)
    stored = await _reload(session_service)
    assert _texts(view(stored.events, "a")) == ["S1"]
    assert _texts(summarizer.calls[0]) == ["one", "two"]


async def test_the_sliding_window_function_yields_a_due_token_summary_unless_skipped(
    session_service: BaseSessionService,
) -> None:
    config = EventsCompactionConfig(
        summarizer=Recording(),
        compaction_interval=99,
        overlap_size=0,
        token_threshold=10,
        event_retention_size=1,
    )
    events = [_event("i1", "one", 1.0), _event("i2", "two", 2.0, tokens=50)]
    session = await _session(session_service, events)
    app = _app(config)

    skipped = [
        e
        async for e in _run_compaction_for_sliding_window(
            app, session, session_service, skip_token_compaction=True
        )
    ]
    assert skipped == []
    (summary,) = [
        e async for e in _run_compaction_for_sliding_window(app, session, session_service)
    ]
    assert summary.actions.compaction is not None
    assert summary.actions.compaction.end_timestamp == 1.0  # the last event is kept


async def test_the_token_threshold_function_commits_a_due_summary_that_reads_back(
    session_service: BaseSessionService,
) -> None:
    config = EventsCompactionConfig(
        summarizer=Recording(), token_threshold=10, event_retention_size=1
    )
    events = [_event("i1", "one", 1.0), _event("i2", "two", 2.0), _event("i3", "x", 3.0, 50)]
    session = await _session(session_service, events)
    agent = LlmAgent(name="a", model=ScriptedModel())

    assert await _run_compaction_for_token_threshold_config(
        config=config, session=session, session_service=session_service, agent=agent
    )
    stored = await _reload(session_service)
    assert stored.revision == session.revision
    assert _texts(view(stored.events, "a")) == ["S1", "x"]
    # the history is now small: nothing more is due
    assert not await _run_compaction_for_token_threshold_config(
        config=config, session=stored, session_service=session_service, agent=agent
    )
    assert not await _run_compaction_for_token_threshold_config(
        config=None, session=stored, session_service=session_service, agent=agent
    )


async def test_the_token_threshold_function_reads_only_the_named_agents_count(
    session_service: BaseSessionService,
) -> None:
    config = EventsCompactionConfig(
        summarizer=Recording(), token_threshold=10, event_retention_size=0
    )
    session = await _session(session_service, [_event("i1", "one", 1.0, tokens=50)])
    app = _app(config)

    # the count was reported for agent "a"; another agent's request is measured by estimate
    assert not await _run_compaction_for_token_threshold_config(
        config=config,
        session=session,
        session_service=session_service,
        agent=LlmAgent(name="other", model=ScriptedModel()),
        agent_name="other",
    )
    assert await _run_compaction_for_token_threshold(app, session, session_service)


async def test_a_stale_session_object_commits_no_summary(
    session_service: BaseSessionService,
) -> None:
    config = EventsCompactionConfig(
        summarizer=Recording(), token_threshold=10, event_retention_size=0
    )
    session = await _session(session_service, [_event("i1", "one", 1.0, tokens=50)])
    other = await _reload(session_service)
    await session_service.append_event(other, _event("i2", "two", 2.0))

    with pytest.raises(StaleSessionError):
        await _run_compaction_for_token_threshold_config(
            config=config,
            session=session,
            session_service=session_service,
            agent=LlmAgent(name="a", model=ScriptedModel()),
        )
    stored = await _reload(session_service)
    assert [e.actions.compaction for e in stored.events] == [None, None]


def test_the_latest_prompt_token_count() -> None:
    events = [_event("i1", "a" * 40, 1.0, tokens=7), _event("i2", "b" * 40, 2.0)]
    assert _latest_prompt_token_count(events) == 7
    assert _latest_prompt_token_count(events, agent_name="a") == 7
    assert _latest_prompt_token_count(events, agent_name="other") == 80 // 4  # estimated
    # a summary resets it: the estimate reads what the model is shown, thoughts left out
    thought = Event(
        invocation_id="i3",
        author="a",
        content=_content("model", "t" * 400, thought=True),
        timestamp=4.0,
    )
    later = [*events, _summary(1.0, 2.0, "S" * 8, at=3.0), thought, _event("i4", "c" * 12, 5.0)]
    assert _latest_prompt_token_count(later) == (8 + 12) // 4
    assert _latest_prompt_token_count([]) is None
    assert _latest_prompt_token_count(events, isolation_scope="task") is None


async def test_each_summary_is_traced(monkeypatch: pytest.MonkeyPatch) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    monkeypatch.setattr(_compaction_trace, "tracer", provider.get_tracer("test"))
    assert api.tracer is not None
    app = _app(
        EventsCompactionConfig(summarizer=Recording(), compaction_interval=2, overlap_size=1)
    )
    session = Session(
        app_name=APP,
        user_id=USER,
        id="s9",
        events=[_event("i1", "one", 1.0), _event("i2", "two", 2.0)],
    )

    (summary,) = [
        e async for e in _run_compaction_for_sliding_window(app, session, InMemorySessionService())
    ]

    (span,) = exporter.get_finished_spans()
    assert span.name == "compact_events sliding_window"
    attributes = dict(span.attributes or {})
    assert attributes["gen_ai.conversation.id"] == "s9"
    assert attributes["gen_ai.compaction.event_count"] == 2
    assert attributes["gen_ai.compaction.overlap_size"] == 1
    assert attributes["gen_ai.compaction.summarizer_type"] == "Recording"
    assert attributes["gen_ai.compaction.result_event_id"] == summary.id
    assert "one" not in str(attributes)


def test_a_rolling_summary_carries_every_summary_its_range_covers() -> None:
    # a summary of a later range was committed before the latest one (of an earlier range):
    # the next rolling summary covers both ranges, so both are given to the summarizer
    events = [
        *(_event(f"i{n}", f"e{n}", float(n)) for n in range(1, 5)),
        _summary(3.0, 4.0, "late range", at=5.0),
        _summary(1.0, 2.0, "early range", at=6.0),
        _event("i7", "e7" * 40, 7.0),
        _event("i8", "e8", 8.0, tokens=100),
    ]
    config = EventsCompactionConfig(token_threshold=10, event_retention_size=1)
    assert _texts(events_to_summarize(config, events)) == ["early range", "late range", "e7" * 40]


def test_a_summary_is_written_only_when_it_can_shrink_the_request() -> None:
    config = EventsCompactionConfig(compaction_interval=1, overlap_size=0)
    earlier = [_event("i1", "one", 1.0), _summary(1.0, 1.0, "x" * 500, at=1.5)]
    # the new events are much smaller than the last summary was: not worth a summary
    assert events_to_summarize(config, [*earlier, _event("i2", "two", 2.0)]) == []
    assert _texts(events_to_summarize(config, [*earlier, _event("i2", "t" * 600, 2.0)])) == [
        "t" * 600
    ]


def test_a_request_for_credentials_is_never_summarised() -> None:
    call = Event(
        invocation_id="i2",
        author="a",
        timestamp=2.0,
        content=types.Content(role="model", parts=[function_call("tool", {}, id="c1")]),
    )
    response = types.FunctionResponse(id="c1", name="tool", response={"error": "auth"})
    asking = Event(
        invocation_id="i2",
        author="a",
        timestamp=3.0,
        content=types.Content(role="user", parts=[types.Part(function_response=response)]),
        actions=EventActions(requested_auth_configs={"c1": {"auth_scheme": {"type": "custom"}}}),
    )
    events = [_event("i1", "one", 1.0), call, asking, _event("i3", "three", 4.0)]
    config = EventsCompactionConfig(compaction_interval=2, overlap_size=0)
    assert _texts(events_to_summarize(config, events)) == ["one"]


def test_an_unanswered_call_after_a_whole_invocation_waits_one_more_range() -> None:
    dead = Event(
        invocation_id="i2",
        author="a",
        timestamp=2.0,
        content=types.Content(role="model", parts=[function_call("tool", {}, id="c1")]),
    )
    config = EventsCompactionConfig(compaction_interval=2, overlap_size=0)
    events = [_event("i1", "one", 1.0), dead, _event("i3", "three", 3.0)]
    assert _texts(events_to_summarize(config, events)) == ["one"]
    # once it opens the range, the call (never answered, of an older invocation) is passed over
    later = [*events, _summary(1.0, 1.0, "S", at=3.5), _event("i4", "four" * 10, 4.0)]
    assert [e.timestamp for e in events_to_summarize(config, later)] == [2.0, 3.0, 4.0]


async def test_the_runners_summary_span_names_the_session(monkeypatch: pytest.MonkeyPatch) -> None:
    from adk_runtime.runners import Runner

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    monkeypatch.setattr(_compaction_trace, "tracer", provider.get_tracer("test"))
    config = EventsCompactionConfig(summarizer=Recording(), compaction_interval=2, overlap_size=0)
    app = App(
        name=APP,
        root_agent=LlmAgent(name="a", model=ScriptedModel(replies=["one", "two"])),
        events_compaction_config=config,
    )
    service = InMemorySessionService()
    await service.create_session(app_name=APP, user_id=USER, session_id="traced")
    runner = Runner(app=app, session_service=service)
    for text in ("first", "second"):
        message = types.Content(role="user", parts=[types.Part(text=text)])
        async for _ in runner.run_async(user_id=USER, session_id="traced", new_message=message):
            pass
    spans = [s for s in exporter.get_finished_spans() if s.name.startswith("compact_events")]
    assert [dict(s.attributes or {})["gen_ai.conversation.id"] for s in spans] == ["traced"]
