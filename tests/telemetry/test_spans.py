"""Spans of a turn on every backend: the tree, the attributes, nothing secret, conflicts."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from adk_runtime.agents import LlmAgent
from adk_runtime.errors import StaleSessionError
from adk_runtime.events import Event
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService, InMemorySessionService
from adk_runtime.testing import ScriptedModel, function_call
from tests.backends import Backend
from tests.llm.helpers import APP, USER, send, start, user

SECRET = "hunter2-do-not-log"


def lookup(city: str) -> str:
    """Look up the weather."""
    return f"sunny in {city} {SECRET}"


def _agent() -> LlmAgent:
    model = ScriptedModel(replies=[function_call("lookup", {"city": SECRET}), "done"])
    return LlmAgent(name="weather", model=model, tools=[lookup])


def _children(spans: list[ReadableSpan], parent: ReadableSpan) -> list[str]:
    ids = parent.context.span_id
    return [s.name for s in spans if s.parent is not None and s.parent.span_id == ids]


def _one(spans: list[ReadableSpan], name: str) -> ReadableSpan:
    found = [s for s in spans if s.name == name]
    assert len(found) == 1, [s.name for s in spans]
    return found[0]


async def test_turn_span_tree(
    session_service: BaseSessionService, spans: InMemorySpanExporter
) -> None:
    runner = await start(_agent(), session_service, state={"token": SECRET})
    spans.clear()
    await send(runner, f"weather? {SECRET}")
    finished = list(spans.get_finished_spans())

    assert len({s.context.trace_id for s in finished}) == 1
    invocation = _one(finished, "invocation")
    assert invocation.parent is None
    agent = _one(finished, "invoke_agent weather")
    assert agent.parent is not None
    assert agent.parent.span_id == invocation.context.span_id
    assert _children(finished, agent).count("generate_content scripted") == 2
    first_model = min(
        (s for s in finished if s.name == "generate_content scripted"),
        key=lambda s: s.start_time or 0,
    )
    # as in google-adk, the tools a response asks for run inside its model span
    assert "execute_tool lookup" in _children(finished, first_model)
    names = [s.name for s in sorted(finished, key=lambda s: s.start_time or 0)]
    model_and_tools = [n for n in names if n.startswith(("generate", "execute"))]
    assert model_and_tools == [
        "generate_content scripted",
        "execute_tool lookup",
        "generate_content scripted",
    ]
    # the turn's start (claim, read, the user's message), then the call, the response and
    # the answer: three appends
    assert [n for n in names if n.startswith("session_store.")] == [
        "session_store.start",
        "session_store.append",
        "session_store.append",
        "session_store.append",
    ]

    model = [s for s in finished if s.name == "generate_content scripted"][-1]
    attributes = dict(model.attributes or {})
    assert attributes["gen_ai.operation.name"] == "generate_content"
    assert attributes["gen_ai.request.model"] == "scripted"
    tool = _one(finished, "execute_tool lookup")
    assert dict(tool.attributes or {})["gen_ai.tool.name"] == "lookup"
    append = [s for s in finished if s.name == "session_store.append"][-1]
    append_attributes = dict(append.attributes or {})
    assert append_attributes["adk.store.backend"] == type(session_service).__name__
    assert append_attributes["adk.store.outcome"] == "committed"
    assert append_attributes["adk.store.revision"] == 4
    opening = dict(_one(finished, "session_store.start").attributes or {})
    assert opening["adk.store.claimed"] is True
    assert opening["adk.store.events_returned"] == 0
    assert opening["adk.store.outcome"] == "committed"

    for span in finished:  # no state value, argument, message or tool result
        assert SECRET not in repr(dict(span.attributes or {}))
        assert all(SECRET not in repr(dict(e.attributes or {})) for e in span.events)


async def test_stale_writer_conflict_is_recorded(
    session_service: BaseSessionService,
    spans: InMemorySpanExporter,
    metric_reader: InMemoryMetricReader,
) -> None:
    backend = type(session_service).__name__
    before = _appends(metric_reader, backend, "conflict")
    session = await session_service.create_session(app_name=APP, user_id=USER)
    stale = await session_service.get_session(app_name=APP, user_id=USER, session_id=session.id)
    assert stale is not None
    await session_service.append_event(session, Event(author="user"))
    spans.clear()
    with pytest.raises(StaleSessionError):
        await session_service.append_event(stale, Event(author="user"))
    append = _one(list(spans.get_finished_spans()), "session_store.append")
    assert dict(append.attributes or {})["adk.store.outcome"] == "conflict"
    assert append.status.status_code == trace.StatusCode.ERROR
    assert _appends(metric_reader, backend, "conflict") == before + 1


async def test_turn_metrics_counted(
    session_service: BaseSessionService,
    spans: InMemorySpanExporter,
    metric_reader: InMemoryMetricReader,
) -> None:
    backend = type(session_service).__name__
    before = _appends(metric_reader, backend, "committed")
    runner = await start(_agent(), session_service)
    await send(runner, "weather?")
    assert _appends(metric_reader, backend, "committed") == before + 4
    points = _points(metric_reader, "adk.operation.duration")
    kinds = {dict(p.attributes)["adk.kind"] for p in points}
    assert kinds == {"model", "tool"}
    assert _points(metric_reader, "adk.turn.events")
    active = _points(metric_reader, "adk.invocations.active")
    assert [p.value for p in active] == [0]


def _points(reader: InMemoryMetricReader, name: str) -> list[Any]:
    data = reader.get_metrics_data()
    found: list[Any] = []
    if data is None:
        return found
    for resource in data.resource_metrics:
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                if metric.name == name:
                    found.extend(metric.data.data_points)
    return found


def _appends(reader: InMemoryMetricReader, backend: str, outcome: str) -> int:
    total = 0
    for point in _points(reader, "adk.store.appends"):
        labels = dict(point.attributes)
        labels.pop("db.system.name", None)
        if labels == {"adk.store.backend": backend, "adk.outcome": outcome}:
            total += int(point.value)
    return total


# OpenTelemetry's db.system.name of each backend; the in-process store is no database.
_DB_SYSTEM = {
    "memory": None,
    "sqlite": "sqlite",
    "postgres": "postgresql",
    "redis": "redis",
    "redis_cluster": "redis",
    "spanner": "gcp.spanner",
}


async def test_store_spans_and_metrics_name_the_database(
    backend: Backend,
    session_service: BaseSessionService,
    spans: InMemorySpanExporter,
    metric_reader: InMemoryMetricReader,
) -> None:
    expected = _DB_SYSTEM[backend.name]
    assert session_service.db_system_name == expected
    before = _counts(metric_reader)
    session = await session_service.create_session(app_name=APP, user_id=USER)
    await session_service.append_event(session, Event(author="user"))
    stale = session.model_copy(update={"revision": 0})
    with pytest.raises(StaleSessionError):
        await session_service.append_event(stale, Event(author="user"))
    await session_service.get_session(app_name=APP, user_id=USER, session_id=session.id)
    await session_service.list_sessions(app_name=APP, user_id=USER)
    await session_service.delete_session(app_name=APP, user_id=USER, session_id=session.id)

    stored = [s for s in spans.get_finished_spans() if s.name.startswith("session_store.")]
    assert sorted({s.name.split(".")[1] for s in stored}) == [
        "append",
        "create",
        "delete",
        "get",
        "list",
    ]
    assert {dict(s.attributes or {}).get("db.system.name") for s in stored} == {expected}
    after = _counts(metric_reader)
    grown = [key for key, count in after.items() if count > before.get(key, 0)]
    for name in ("adk.store.appends", "adk.store.append.duration"):
        labels = [dict(attributes) for metric, attributes in grown if metric == name]
        assert {a["adk.outcome"] for a in labels} == {"committed", "conflict"}
        assert {a["adk.store.backend"] for a in labels} == {type(session_service).__name__}
        assert {a.get("db.system.name") for a in labels} == {expected}


def _counts(reader: InMemoryMetricReader) -> dict[tuple[str, frozenset[Any]], int]:
    """Each store metric's points by their attributes: the count (a histogram's) or value."""
    counts: dict[tuple[str, frozenset[Any]], int] = {}
    for name in ("adk.store.appends", "adk.store.append.duration"):
        for point in _points(reader, name):
            key = (name, frozenset(dict(point.attributes).items()))
            counts[key] = int(getattr(point, "count", None) or point.value)
    return counts


async def test_idempotent_replay_is_recorded(
    session_service: BaseSessionService,
    spans: InMemorySpanExporter,
    metric_reader: InMemoryMetricReader,
) -> None:
    backend = type(session_service).__name__
    before = _appends(metric_reader, backend, "idempotent")
    session = await session_service.create_session(app_name=APP, user_id=USER)
    event = Event(author="user")
    await session_service.append_event(session, event)
    spans.clear()
    await session_service.append_event(session, event.model_copy())
    append = _one(list(spans.get_finished_spans()), "session_store.append")
    assert dict(append.attributes or {})["adk.store.outcome"] == "idempotent"
    assert _appends(metric_reader, backend, "idempotent") == before + 1


async def test_runner_run_thread_keeps_one_trace(spans: InMemorySpanExporter) -> None:
    service = InMemorySessionService()
    runner = Runner(app_name=APP, agent=_agent(), session_service=service)
    await service.create_session(app_name=APP, user_id=USER, session_id="s1")
    spans.clear()

    def drive() -> int:  # the caller's span, then Runner.run's background thread
        with trace.get_tracer("caller").start_as_current_span("request"):
            return len(list(runner.run(user_id=USER, session_id="s1", new_message=user("hi"))))

    assert await asyncio.to_thread(drive) == 3
    finished = list(spans.get_finished_spans())
    assert len({s.context.trace_id for s in finished}) == 1
    request = _one(finished, "request")
    invocation = _one(finished, "invocation")
    assert invocation.parent is not None
    assert invocation.parent.span_id == request.context.span_id
    assert len([s for s in finished if s.name.startswith("generate_content")]) == 2


async def test_model_spans_carry_google_adks_ids_from_the_start(
    spans: InMemorySpanExporter,
) -> None:
    def broken(request: Any) -> str:
        raise RuntimeError("the model is down")

    agent = LlmAgent(name="weather", model=ScriptedModel(handler=broken))
    runner = await start(agent, InMemorySessionService())
    spans.clear()
    with pytest.raises(RuntimeError):
        await send(runner, "weather?")
    model = _one(list(spans.get_finished_spans()), "generate_content scripted")
    attributes = dict(model.attributes or {})
    assert model.status.status_code == trace.StatusCode.ERROR
    # google-adk's web UI refuses a trace whose model call names no event and invocation
    assert attributes["gcp.vertex.agent.event_id"] == attributes["adk.event.id"]
    assert attributes["gcp.vertex.agent.invocation_id"] == attributes["adk.invocation.id"]
    assert attributes["gcp.vertex.agent.session_id"] == "s1"
    assert attributes["gen_ai.conversation.id"] == "s1"
    assert attributes["gen_ai.agent.name"] == "weather"
