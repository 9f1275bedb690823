"""ReflectAndRetryModelPlugin: a malformed reply is answered with a reflection step, and retried."""

from __future__ import annotations

from typing import Any

import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.apps import App
from adk_runtime.errors import PluginError
from adk_runtime.models.llm_response import LlmResponse
from adk_runtime.plugins import ReflectAndRetryModelPlugin
from adk_runtime.plugins.reflect_retry_tool_plugin import TrackingScope
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService, InMemorySessionService
from adk_runtime.testing import ScriptedModel, function_call
from tests.llm.fake_gemini import FakeGemini, text_body
from tests.llm.helpers import APP, USER, send, stored, texts
from tests.llm.test_gemini import fake, gemini

__all__ = ["fake"]  # the fixture

MALFORMED = LlmResponse(
    error_code=types.FinishReason.MALFORMED_FUNCTION_CALL,
    finish_reason=types.FinishReason.MALFORMED_FUNCTION_CALL,
    error_message="Malformed function call: lookup(city=",
)


async def runner_for(
    service: BaseSessionService, replies: list[Any], **options: Any
) -> tuple[Runner, ScriptedModel]:
    model = ScriptedModel(replies=replies)
    agent = LlmAgent(name="helper", model=model)
    plugin = ReflectAndRetryModelPlugin(**options)
    await service.create_session(app_name=APP, user_id=USER, session_id="s1")
    return Runner(
        app=App(name=APP, root_agent=agent, plugins=[plugin]), session_service=service
    ), model


def reflection_calls(request_contents: list[types.Content]) -> list[types.Part]:
    return [
        part
        for content in request_contents
        for part in content.parts or []
        if (part.function_call or part.function_response)
        and (part.function_call or part.function_response).name == "adk_handle_model_error"  # type: ignore[union-attr]
    ]


async def test_a_malformed_reply_is_reflected_on_and_retried(
    session_service: BaseSessionService,
) -> None:
    runner, model = await runner_for(session_service, [MALFORMED, "It is sunny in Oslo."])
    events = await send(runner, "weather in Oslo?")
    assert texts(events) == ["It is sunny in Oslo."]
    call = events[0].get_function_calls()[0]
    assert call.name == "adk_handle_model_error"
    assert call.args is not None
    assert call.args["error_type"] == "MALFORMED_FUNCTION_CALL"
    assert call.args["retry_count"] == 1
    answer = events[1].get_function_responses()[0].response
    assert answer is not None
    assert "retry 1 of 3" in answer["reflection_guidance"]
    # The retry request holds the reflection step; the reserved tool is never declared.
    assert len(model.requests) == 2
    assert len(reflection_calls(model.requests[1].contents)) == 2
    declared = [
        d.name for t in model.requests[1].config.tools or [] for d in t.function_declarations or []
    ]
    assert "adk_handle_model_error" not in declared
    # What was committed reads back whole.
    session = await stored(runner)
    assert [e.id for e in session.events][1:] == [e.id for e in events]


async def test_past_the_limit_it_raises_or_lets_the_failure_through() -> None:
    runner, _ = await runner_for(InMemorySessionService(), [MALFORMED] * 3, max_retries=2)
    with pytest.raises(PluginError) as raised:
        await send(runner, "hi")
    assert "retry limit is exceeded" in str(raised.value.__cause__)
    runner, _ = await runner_for(
        InMemorySessionService(),
        [MALFORMED] * 2,
        max_retries=1,
        throw_exception_if_retry_exceeded=False,
    )
    events = await send(runner, "hi")
    assert events[-1].error_code == types.FinishReason.MALFORMED_FUNCTION_CALL


async def test_a_good_reply_resets_the_count() -> None:
    replies: list[Any] = [MALFORMED, function_call("nothing_here", {}), MALFORMED, "done"]
    runner, _ = await runner_for(InMemorySessionService(), replies, max_retries=1)
    events = await send(runner, "hi")
    assert texts(events) == ["done"]


async def test_the_model_calling_the_reserved_tool_is_a_failure() -> None:
    sneaky = function_call("adk_handle_model_error", {"response_type": "x"})
    runner, _ = await runner_for(InMemorySessionService(), [sneaky, "ok"])
    events = await send(runner, "hi")
    call = events[0].get_function_calls()[0]
    assert call.args is not None
    assert call.args["error_type"] == "RESERVED_TOOL_CALL"
    assert texts(events) == ["ok"]
    runner, _ = await runner_for(
        InMemorySessionService(), [sneaky], max_retries=0, throw_exception_if_retry_exceeded=False
    )
    events = await send(runner, "hi")
    assert events[-1].error_code == "RESERVED_TOOL_CALL"


async def test_other_finish_reasons_pass_unless_named() -> None:
    blocked = LlmResponse(
        error_code=types.FinishReason.SAFETY, finish_reason=types.FinishReason.SAFETY
    )
    runner, _ = await runner_for(InMemorySessionService(), [blocked])
    assert (await send(runner, "hi"))[-1].error_code == types.FinishReason.SAFETY
    runner, _ = await runner_for(
        InMemorySessionService(), [blocked, "safe now"], on_model_errors=[types.FinishReason.SAFETY]
    )
    assert texts(await send(runner, "hi")) == ["safe now"]


@pytest.mark.parametrize(
    ("scope", "retried"), [(TrackingScope.INVOCATION, True), (TrackingScope.GLOBAL, False)]
)
async def test_the_scope_decides_whether_failures_count_across_invocations(
    scope: TrackingScope, retried: bool
) -> None:
    runner, model = await runner_for(
        InMemorySessionService(),
        [MALFORMED, MALFORMED, MALFORMED, "fine"],
        max_retries=1,
        throw_exception_if_retry_exceeded=False,
        tracking_scope=scope,
    )
    first = await send(runner, "one")  # a failure, its retry fails too: given up
    assert first[-1].error_code == types.FinishReason.MALFORMED_FUNCTION_CALL
    assert len(model.requests) == 2
    second = await send(runner, "two")
    if retried:  # a new invocation starts counting afresh
        assert texts(second) == ["fine"]
    else:  # the failures of the first invocation still count: no retry
        assert second[-1].error_code == types.FinishReason.MALFORMED_FUNCTION_CALL
        assert len(model.requests) == 3


def test_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="max_retries"):
        ReflectAndRetryModelPlugin(max_retries=-1)
    with pytest.raises(ValueError, match="FinishReason"):
        ReflectAndRetryModelPlugin(on_model_errors=["MALFORMED_FUNCTION_CALL"])  # type: ignore[list-item]


async def test_on_gemini_a_malformed_call_is_retried_with_the_reflection_in_the_request(
    fake: FakeGemini,
) -> None:
    malformed = {
        "candidates": [
            {"finishReason": "MALFORMED_FUNCTION_CALL", "finishMessage": "Malformed call"}
        ],
        "modelVersion": "gemini-fake",
    }
    fake.replies += [(200, malformed), (200, text_body("Sunny."))]
    agent = LlmAgent(name="helper", model=gemini(fake))
    service = InMemorySessionService()
    await service.create_session(app_name=APP, user_id=USER, session_id="s1")
    app = App(name=APP, root_agent=agent, plugins=[ReflectAndRetryModelPlugin()])
    events = await send(Runner(app=app, session_service=service), "weather?")
    assert texts(events) == ["Sunny."]
    retry = fake.requests[1][1]
    step = [p for c in retry["contents"] for p in c["parts"] if "functionCall" in p]
    assert [p["functionCall"]["name"] for p in step] == ["adk_handle_model_error"]
    assert step[0]["functionCall"]["args"]["error_type"] == "MALFORMED_FUNCTION_CALL"
    assert step[0]["thoughtSignature"]  # Gemini's skip-validation signature rides along
    answers = [p for c in retry["contents"] for p in c["parts"] if "functionResponse" in p]
    assert "reflection_guidance" in answers[0]["functionResponse"]["response"]
    assert "tools" not in retry or all(
        d["name"] != "adk_handle_model_error"
        for t in retry["tools"]
        for d in t.get("functionDeclarations", [])
    )
