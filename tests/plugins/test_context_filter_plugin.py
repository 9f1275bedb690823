"""ContextFilterPlugin: requests carry the last invocations only; the session keeps all."""

from __future__ import annotations

import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.apps import App
from adk_runtime.plugins.context_filter_plugin import ContextFilterPlugin, _paired_cut
from adk_runtime.runners import InMemoryRunner
from adk_runtime.testing import ScriptedModel


def _text(role: str, text: str) -> types.Content:
    return types.Content(role=role, parts=[types.Part(text=text)])


async def _turns(plugin: ContextFilterPlugin, count: int) -> tuple[ScriptedModel, int]:
    model = ScriptedModel(replies=[f"answer {n}" for n in range(count)])
    runner = InMemoryRunner(
        app=App(name="a", root_agent=LlmAgent(name="a", model=model), plugins=[plugin])
    )
    await runner.session_service.create_session(app_name="a", user_id="u", session_id="s")
    for n in range(count):
        async for _ in runner.run_async(
            user_id="u", session_id="s", new_message=_text("user", f"question {n}")
        ):
            pass
    session = await runner.session_service.get_session(app_name="a", user_id="u", session_id="s")
    assert session is not None
    return model, len(session.events)


def _sent(model: ScriptedModel, call: int) -> list[str]:
    return [part.text or "" for c in model.requests[call].contents for part in c.parts or []]


async def test_requests_keep_the_last_invocations_and_the_session_keeps_all() -> None:
    model, stored = await _turns(ContextFilterPlugin(num_invocations_to_keep=2), 4)
    assert stored == 8
    assert _sent(model, 1) == ["question 0", "answer 0", "question 1"]  # 2 invocations: kept
    assert _sent(model, 3) == ["question 2", "answer 2", "question 3"]


async def test_remove_amount_lets_invocations_accumulate_before_a_cut() -> None:
    model, _ = await _turns(ContextFilterPlugin(num_invocations_to_keep=1, remove_amount=2), 3)
    assert _sent(model, 1) == ["question 0", "answer 0", "question 1"]  # 2 < 1 + 2: no cut
    assert _sent(model, 2) == ["question 2"]


async def test_a_failing_custom_filter_sends_the_request_unchanged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(contents: list[types.Content]) -> list[types.Content]:
        raise ValueError("bug")

    model, _ = await _turns(ContextFilterPlugin(custom_filter=broken), 2)
    assert _sent(model, 1) == ["question 0", "answer 0", "question 1"]
    assert "ValueError" in caplog.text


def test_a_cut_never_orphans_a_function_response() -> None:
    call = types.Content(
        role="model",
        parts=[types.Part(function_call=types.FunctionCall(id="c1", name="f", args={}))],
    )
    response = types.Content(
        role="user",
        parts=[
            types.Part(function_response=types.FunctionResponse(id="c1", name="f", response={}))
        ],
    )
    contents = [_text("user", "q0"), call, _text("user", "q1"), response, _text("model", "a")]
    assert _paired_cut(contents, 2) == 1  # moved back to the call
    assert _paired_cut([_text("user", "q0"), _text("user", "q1")], 1) == 1
    with pytest.raises(ValueError, match="remove_amount"):
        ContextFilterPlugin(remove_amount=0)
