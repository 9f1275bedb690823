"""DebugLoggingPlugin: one YAML document per invocation in the file, nothing in the logs."""

from __future__ import annotations

import logging
import math
import stat
from pathlib import Path
from typing import Any

import pytest
import yaml
from blockbuster import BlockBuster
from google.genai import types
from hypothesis import example, given
from hypothesis import strategies as st

from adk_runtime.agents import LlmAgent
from adk_runtime.apps import App
from adk_runtime.core.base_plugin import BasePlugin
from adk_runtime.plugins import (
    DebugLoggingPlugin,
    ReflectAndRetryToolPlugin,
    ToolResultClassification,
)
from adk_runtime.plugins._debug_data import plain, to_yaml
from adk_runtime.runners import InMemoryRunner
from adk_runtime.testing import ScriptedModel, function_call

SECRET = "hunter2-do-not-log"


def lookup(city: str, api_key: str = "") -> dict[str, Any]:
    """Look up the weather."""
    if city == "Atlantis":
        raise LookupError("no such city")
    return {"weather": f"sunny in {city}", "session_token": SECRET}


async def _run(
    path: Path, replies: list[Any], *messages: str, plugins: list[BasePlugin] | None = None
) -> InMemoryRunner:
    model = ScriptedModel(replies=replies)
    agent = LlmAgent(name="agent", model=model, tools=[lookup], instruction="Be brief.")
    plugins = plugins if plugins is not None else [DebugLoggingPlugin(output_path=str(path))]
    runner = InMemoryRunner(app=App(name="app", root_agent=agent, plugins=plugins))
    await runner.session_service.create_session(
        app_name="app", user_id="u", session_id="s", state={"user:password": SECRET, "city": "Oslo"}
    )
    for text in messages:
        message = types.Content(role="user", parts=[types.Part(text=text)])
        async for _ in runner.run_async(user_id="u", session_id="s", new_message=message):
            pass
    return runner


def _documents(path: Path) -> list[dict[str, Any]]:
    return list(yaml.safe_load_all(path.read_text(encoding="utf-8")))


def _of(document: dict[str, Any], entry_type: str) -> list[dict[str, Any]]:
    return [e["data"] for e in document["entries"] if e["entry_type"] == entry_type]


async def test_an_invocation_is_written_whole_and_secrets_are_redacted(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, blockbuster: BlockBuster
) -> None:
    caplog.set_level(logging.DEBUG)
    path = tmp_path / "debug.yaml"
    replies = [function_call("lookup", {"city": "Oslo", "api_key": SECRET}), "Sunny."]
    await _run(path, replies, "weather in Oslo?")  # the file is written off the event loop
    blockbuster.deactivate()  # the test's own reads below may block
    [document] = _documents(path)
    assert (document["app_name"], document["user_id"], document["session_id"]) == ("app", "u", "s")
    assert [e["entry_type"] for e in document["entries"]] == [
        "user_message",
        "invocation_start",
        "agent_start",
        "llm_request",
        "llm_response",
        "event",
        "tool_call",
        "tool_response",
        "event",
        "llm_request",
        "llm_response",
        "event",
        "agent_end",
        "session_state_snapshot",
        "invocation_end",
    ]
    [message] = _of(document, "user_message")
    assert message["content"]["parts"] == [{"text": "weather in Oslo?"}]
    first_request = _of(document, "llm_request")[0]
    assert first_request["tools"] == ["lookup"]
    assert first_request["config"]["system_instruction"].startswith("Be brief.")
    [call] = _of(document, "tool_call")
    assert call["args"] == {"city": "Oslo", "api_key": "[REDACTED]"}
    [response] = _of(document, "tool_response")
    assert response["result"] == {"weather": "sunny in Oslo", "session_token": "[REDACTED]"}
    [snapshot] = _of(document, "session_state_snapshot")
    assert snapshot["state"] == {"user:password": "[REDACTED]", "city": "Oslo"}
    assert snapshot["event_count"] == 4
    assert SECRET not in path.read_text(encoding="utf-8")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert "weather in Oslo" not in caplog.text
    assert "sunny" not in caplog.text


async def test_each_invocation_appends_a_document_and_a_failed_one_too(tmp_path: Path) -> None:
    path = tmp_path / "debug.yaml"
    runner = await _run(path, ["one"], "first")
    message = types.Content(role="user", parts=[types.Part(text="second")])
    with pytest.raises(Exception, match="script"):  # the model has no reply left
        async for _ in runner.run_async(user_id="u", session_id="s", new_message=message):
            pass
    first, failed = _documents(path)
    assert first["invocation_id"] != failed["invocation_id"]
    [error] = _of(failed, "invocation_error")
    assert error["error_type"] == "ScriptExhaustedError"
    assert failed["entries"][-1]["entry_type"] == "invocation_end"


@pytest.mark.parametrize("debug_first", [True, False])
async def test_a_tool_failure_is_recorded_once_with_reflect_and_retry(
    tmp_path: Path, debug_first: bool
) -> None:
    path = tmp_path / "debug.yaml"
    debug = DebugLoggingPlugin(output_path=str(path))
    retry = ReflectAndRetryToolPlugin()
    plugins: list[BasePlugin] = [debug, retry] if debug_first else [retry, debug]
    replies = [function_call("lookup", {"city": "Atlantis"}), "No such city."]
    await _run(path, replies, "weather in Atlantis?", plugins=plugins)
    [document] = _documents(path)
    [error] = _of(document, "tool_error")
    assert _of(document, "tool_response") == []
    if debug_first:  # it saw the exception itself
        assert (error["error_type"], error["error_message"]) == ("LookupError", "no such city")
    else:  # it saw the retry plugin's answer
        assert error["error_message"] == "no such city"
        assert error["result"]["retry_count"] == 1


async def test_a_classifier_marks_results_as_errors(tmp_path: Path) -> None:
    def classify(**kwargs: Any) -> ToolResultClassification | None:
        if "Oslo" in kwargs["result"]["weather"]:
            return ToolResultClassification(status="ERROR", error_message="stale forecast")
        return None

    path = tmp_path / "debug.yaml"
    plugin = DebugLoggingPlugin(output_path=str(path), tool_result_classifier=classify)
    replies = [function_call("lookup", {"city": "Oslo"}), "Sunny."]
    await _run(path, replies, "weather?", plugins=[plugin])
    [error] = _of(_documents(path)[0], "tool_error")
    assert error["error_message"] == "stale forecast"


async def test_the_system_instruction_can_be_left_out(tmp_path: Path) -> None:
    path = tmp_path / "debug.yaml"
    plugin = DebugLoggingPlugin(
        output_path=str(path), include_system_instruction=False, include_session_state=False
    )
    await _run(path, ["hi"], "hello", plugins=[plugin])
    [document] = _documents(path)
    [request] = _of(document, "llm_request")
    assert "system_instruction" not in request["config"]
    assert request["config"]["system_instruction_length"] == len("Be brief.")
    assert _of(document, "session_state_snapshot") == []


def test_values_are_reduced_to_plain_data() -> None:
    key = "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----"
    part = types.Part(inline_data=types.Blob(data=b"12345", mime_type="image/png"))
    assert plain({"note": f"before {key} after", "apiKey": "x", "X-Api-Key": "y"}) == {
        "note": "before [REDACTED] after",
        "apiKey": "[REDACTED]",
        "X-Api-Key": "[REDACTED]",
    }
    assert plain({"prompt_token_count": 3, "tokens": (1, 2)}) == {
        "prompt_token_count": 3,
        "tokens": [1, 2],
    }
    assert plain(part) == {"inline_data": {"data": "<5 bytes>", "mime_type": "image/png"}}
    looped: list[Any] = []
    looped.append(looped)
    assert "nested too deep" in str(plain(looped))


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children) | st.dictionaries(st.text(), children),
    max_leaves=20,
)


@given(_json)
@example({"\x85": None})  # a NEL, which PyYAML's unicode output folds into a space
def test_the_yaml_writer_round_trips_through_a_yaml_reader(value: Any) -> None:
    document = {"value": value}
    read = yaml.safe_load(to_yaml(document))
    assert _same(read, document)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isinf(a) and a == b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def test_a_credential_answer_is_recorded_without_its_key(tmp_path: Path) -> None:
    """A bare key the answer wraps (``{"result": "<key>"}``) is under no secret-named key:
    it is dropped as the HTTP API drops it."""
    plugin = DebugLoggingPlugin(output_path=str(tmp_path / "debug.yaml"))
    answer = types.FunctionResponse(
        id="adk-1", name="adk_request_credential", response={"result": SECRET}
    )
    other = types.FunctionResponse(id="t1", name="lookup", response={"result": "kept"})
    content = types.Content(
        role="user",
        parts=[types.Part(function_response=answer), types.Part(function_response=other)],
    )

    serialized = plugin._serialize_content(content)  # pyright: ignore[reportPrivateUsage]

    assert SECRET not in repr(serialized)
    assert serialized is not None
    assert serialized["parts"][0]["function_response"]["response"] == {}
    assert serialized["parts"][1]["function_response"]["response"] == {"result": "kept"}
