"""/metrics from a real `adk-runtime serve --metrics`; the dev UI's trace routes."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from adk_runtime.server import create_app
from adk_runtime.sessions import InMemorySessionService
from tests.serving import running_server
from tests.telemetry.agent import root_agent

APP = "weather"
TOKEN = "metrics-token-456"


def _turn(client: httpx.Client, user: str) -> list[dict[str, Any]]:
    created = client.post(f"/apps/{APP}/users/{user}/sessions")
    assert created.status_code == 200, created.text
    session_id = created.json()["id"]
    body = {
        "app_name": APP,
        "user_id": user,
        "session_id": session_id,
        "new_message": {"role": "user", "parts": [{"text": "weather?"}]},
    }
    ran = client.post("/run", json=body)
    assert ran.status_code == 200, ran.text
    events: list[dict[str, Any]] = ran.json()
    return events


@contextlib.contextmanager
def _serve(tmp_path: Any, *flags: str) -> Iterator[tuple[str, httpx.Client]]:
    """A real ``adk-runtime serve`` of the test agent on a SQLite file, behind TOKEN."""
    db = tmp_path / "sessions.db"
    with running_server(
        "--agent", "tests.telemetry.agent:root_agent", "--session-url",
        f"sqlite+aiosqlite:///{db}", *flags, "--auth-token", TOKEN, "--log-level", "warning",
    ) as url:  # fmt: skip
        headers = {"Authorization": f"Bearer {TOKEN}"}
        with httpx.Client(base_url=url, headers=headers, timeout=30) as client:
            yield url, client


@pytest.mark.sqlite
def test_metrics_scraped_from_serve(tmp_path: Any) -> None:
    with _serve(tmp_path, "--metrics") as (url, client):
        assert len(_turn(client, "u1")) == 3
        scraped = client.get("/metrics")
        assert httpx.get(f"{url}/metrics").status_code == 401  # behind the token
    assert scraped.status_code == 200
    assert scraped.headers["content-type"].startswith("text/plain")
    text = scraped.text
    committed = re.search(
        r'^adk_store_appends_total\{adk_outcome="committed",'
        r'adk_store_backend="DatabaseSessionService",db_system_name="sqlite"\} (\S+)$',
        text,
        re.M,
    )
    assert committed is not None, text
    assert float(committed.group(1)) == 4.0  # the message, the call, the response, the answer
    assert "adk_store_append_duration_seconds_bucket{" in text
    assert re.search(
        r'^adk_operation_duration_seconds_count\{adk_kind="tool",adk_name="lookup"\} 1', text, re.M
    )
    assert re.search(r"^adk_invocations_active 0", text, re.M)


async def test_trace_routes_answer_from_recorded_spans(spans: InMemorySpanExporter) -> None:
    app = create_app(agent=root_agent, session_service=InMemorySessionService(), record_traces=True)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        created = await client.post(f"/apps/{APP}/users/u1/sessions")
        session_id = created.json()["id"]
        body = {
            "app_name": APP,
            "user_id": "u1",
            "session_id": session_id,
            "new_message": {"role": "user", "parts": [{"text": "weather?"}]},
        }
        events = (await client.post("/run", json=body)).json()
        trace = (await client.get(f"/dev/apps/{APP}/debug/trace/session/{session_id}")).json()
        event_trace = await client.get(f"/dev/apps/{APP}/debug/trace/{events[0]['id']}")
        missing = await client.get(f"/dev/apps/{APP}/debug/trace/no-such-event")
        other = (await client.get(f"/dev/apps/{APP}/debug/trace/session/other")).json()

    names = [span["name"] for span in trace]
    assert "invocation" in names
    assert names.count("generate_content scripted") == 2
    assert "execute_tool lookup" in names
    assert len({span["trace_id"] for span in trace}) == 1
    first = trace[0]
    assert set(first) == {
        "name", "start_time", "end_time", "trace_id", "span_id", "parent_span_id",
        "attributes", "logs",
    }  # fmt: skip
    assert event_trace.status_code == 200
    found = event_trace.json()
    assert found["gen_ai.request.model"] == "scripted"
    assert found["adk.event.id"] == events[0]["id"]
    assert isinstance(found["trace_id"], int)
    assert missing.status_code == 200  # the dev UI asks after every message: never a 404
    assert missing.json() == {}
    assert other == []
    exported = [dict(s.attributes or {}) for s in spans.get_finished_spans()]
    assert not any(key in a for a in exported for key in CONTENT)  # the recorder's only


CONTENT = (
    "gcp.vertex.agent.llm_request",
    "gcp.vertex.agent.llm_response",
    "gcp.vertex.agent.tool_call_args",
    "gcp.vertex.agent.tool_response",
)


async def test_the_session_trace_is_what_google_adks_web_ui_reads(
    spans: InMemorySpanExporter,
) -> None:
    app = create_app(agent=root_agent, session_service=InMemorySessionService(), record_traces=True)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        session_id = (await client.post(f"/apps/{APP}/users/u1/sessions")).json()["id"]
        body = {
            "app_name": APP,
            "user_id": "u1",
            "session_id": session_id,
            "new_message": {"role": "user", "parts": [{"text": "weather?"}]},
        }
        call, response, answer = (await client.post("/run", json=body)).json()
        trace = (await client.get(f"/dev/apps/{APP}/debug/trace/session/{session_id}")).json()
        tool_trace = (await client.get(f"/dev/apps/{APP}/debug/trace/{response['id']}")).json()

    invocation = call["invocationId"]
    for span in trace:  # the UI's checks: it refuses the whole trace if one span fails them
        attributes = span["attributes"]
        assert attributes["gcp.vertex.agent.invocation_id"] == invocation
        operation = attributes.get("gen_ai.operation.name")
        if operation == "invoke_agent":
            assert attributes["gen_ai.conversation.id"] == session_id
        if operation == "generate_content":
            assert isinstance(attributes["gcp.vertex.agent.event_id"], str)
    models = [s["attributes"] for s in trace if s["name"] == "generate_content scripted"]
    assert [m["gcp.vertex.agent.event_id"] for m in models] == [call["id"], answer["id"]]
    assert {m["gcp.vertex.agent.session_id"] for m in models} == {session_id}
    first_request = json.loads(models[0]["gcp.vertex.agent.llm_request"])
    assert first_request["contents"][-1] == {"parts": [{"text": "weather?"}], "role": "user"}
    assert [d["name"] for d in first_request["config"]["tools"][0]["function_declarations"]] == [
        "lookup"
    ]
    first_response = json.loads(models[0]["gcp.vertex.agent.llm_response"])
    assert first_response["content"]["parts"][0]["function_call"]["name"] == "lookup"
    [tool] = [s["attributes"] for s in trace if s["name"] == "execute_tool lookup"]
    assert tool["gcp.vertex.agent.event_id"] == response["id"]  # the function-response event
    assert json.loads(tool["gcp.vertex.agent.tool_call_args"]) == {"city": "Paris"}
    assert json.loads(tool["gcp.vertex.agent.tool_response"]) == {"result": "sunny in Paris"}
    assert tool_trace["gcp.vertex.agent.tool_response"] == tool["gcp.vertex.agent.tool_response"]
    exported = [dict(s.attributes or {}) for s in spans.get_finished_spans()]
    assert not any(key in a for a in exported for key in CONTENT)  # the recorder's only


@pytest.mark.sqlite
def test_trace_routes_of_a_real_serve_with_record_traces(tmp_path: Any) -> None:
    with _serve(tmp_path, "--record-traces") as (url, client):
        assert len(_turn(client, "u1")) == 3
        sid = client.get(f"/apps/{APP}/users/u1/sessions").json()[0]["id"]
        trace = client.get(f"/dev/apps/{APP}/debug/trace/session/{sid}")
        assert httpx.get(f"{url}/dev/apps/{APP}/debug/trace/session/{sid}").status_code == 401
    assert trace.status_code == 200, trace.text
    names = [span["name"] for span in trace.json()]
    assert "invocation" in names
    assert any(name.startswith("generate_content") for name in names)
    assert any(name.startswith("execute_tool") for name in names)
    assert len({span["trace_id"] for span in trace.json()}) == 1
