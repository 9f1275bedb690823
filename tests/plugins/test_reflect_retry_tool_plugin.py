"""ReflectAndRetryToolPlugin through a Runner: guidance on failure, a limit, then raise or stop."""

from __future__ import annotations

from typing import Any

import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.apps import App
from adk_runtime.errors import PluginError
from adk_runtime.events import Event
from adk_runtime.plugins import ReflectAndRetryToolPlugin
from adk_runtime.plugins.reflect_retry_tool_plugin import (
    REFLECT_AND_RETRY_RESPONSE_TYPE,
    TrackingScope,
)
from adk_runtime.runners import InMemoryRunner
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import BaseTool, ToolContext


class Flaky:
    """A tool that fails its first ``failures`` calls, then answers."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls: list[int] = []

    def __call__(self, n: int) -> dict[str, Any]:
        """Look up n."""
        self.calls.append(n)
        if len(self.calls) <= self.failures:
            raise ValueError(f"backend rejected {n}")
        return {"value": n * 10}


def _flaky_tool(flaky: Flaky) -> Any:
    def lookup(n: int) -> dict[str, Any]:
        """Look up n."""
        return flaky(n)

    return lookup


async def _runner(
    plugin: ReflectAndRetryToolPlugin, model: ScriptedModel, tool: Any
) -> InMemoryRunner:
    agent = LlmAgent(name="agent", model=model, tools=[tool])
    runner = InMemoryRunner(app=App(name="app", root_agent=agent, plugins=[plugin]))
    await runner.session_service.create_session(app_name="app", user_id="u", session_id="s")
    return runner


async def _send(runner: InMemoryRunner, text: str = "go") -> list[Event]:
    message = types.Content(role="user", parts=[types.Part(text=text)])
    return [e async for e in runner.run_async(user_id="u", session_id="s", new_message=message)]


def _responses(events: list[Event]) -> list[dict[str, Any]]:
    return [
        dict(part.function_response.response or {})
        for event in events
        for part in (event.content.parts if event.content else None) or []
        if part.function_response is not None
    ]


def _calls(*numbers: int) -> list[Any]:
    return [function_call("lookup", {"n": n}) for n in numbers]


async def test_the_model_gets_guidance_after_each_failure_then_the_result() -> None:
    flaky = Flaky(failures=2)
    model = ScriptedModel(replies=[*_calls(1, 2, 3), "It is 30."])
    runner = await _runner(ReflectAndRetryToolPlugin(max_retries=3), model, _flaky_tool(flaky))
    events = await _send(runner)
    first, second, success = _responses(events)
    assert first["response_type"] == REFLECT_AND_RETRY_RESPONSE_TYPE
    assert (first["error_type"], first["error_details"]) == ("ValueError", "backend rejected 1")
    assert (first["retry_count"], second["retry_count"]) == (1, 2)
    guidance = first["reflection_guidance"]
    assert "lookup" in guidance
    assert "backend rejected 1" in guidance
    assert '"n": 1' in guidance
    assert success == {"value": 30}
    assert flaky.calls == [1, 2, 3]
    # what the model was sent after the first failure is the guidance answer
    sent = model.requests[1].contents[-1].parts[0].function_response  # type: ignore[index]
    assert sent is not None
    assert sent.response == first


async def test_past_the_limit_the_error_ends_the_invocation_as_in_google_adk() -> None:
    flaky = Flaky(failures=10)
    model = ScriptedModel(replies=[*_calls(1, 2, 3), "never sent"])
    runner = await _runner(ReflectAndRetryToolPlugin(max_retries=2), model, _flaky_tool(flaky))
    with pytest.raises(PluginError) as raised:
        await _send(runner)
    assert isinstance(raised.value, RuntimeError)  # google-adk raises a RuntimeError
    assert isinstance(raised.value.__cause__, ValueError)
    assert str(raised.value.__cause__) == "backend rejected 3"
    assert flaky.calls == [1, 2, 3]
    assert len(model.requests) == 3  # the third failure was not answered to the model
    session = await runner.session_service.get_session(app_name="app", user_id="u", session_id="s")
    assert session is not None
    assert [r["retry_count"] for r in _responses(session.events)] == [1, 2]


async def test_past_the_limit_without_raising_the_model_is_told_to_stop() -> None:
    flaky = Flaky(failures=10)
    model = ScriptedModel(replies=[*_calls(1, 2, 3), "I could not look it up."])
    plugin = ReflectAndRetryToolPlugin(max_retries=2, throw_exception_if_retry_exceeded=False)
    runner = await _runner(plugin, model, _flaky_tool(flaky))
    events = await _send(runner)
    answers = _responses(events)
    assert [a["retry_count"] for a in answers] == [1, 2, 2]  # the last: max_retries, gave up
    assert answers[2]["response_type"] == REFLECT_AND_RETRY_RESPONSE_TYPE
    assert answers[2]["reflection_guidance"] != answers[1]["reflection_guidance"]
    assert "use the `lookup` tool any more" in answers[2]["reflection_guidance"]
    final = events[-1].content
    assert final is not None
    assert final.parts is not None
    assert final.parts[0].text == "I could not look it up."


async def test_a_success_resets_the_count_of_that_tool() -> None:
    outcomes = iter([True, False, True, True])  # fail, succeed, fail, fail

    def lookup(n: int) -> dict[str, Any]:
        """Look up n."""
        if next(outcomes):
            raise ValueError("no")
        return {"value": n}

    model = ScriptedModel(replies=[*_calls(1, 2, 3, 4), "done"])
    runner = await _runner(ReflectAndRetryToolPlugin(max_retries=3), model, lookup)
    answers = _responses(await _send(runner))
    assert [a.get("retry_count") for a in answers] == [1, None, 1, 2]


@pytest.mark.parametrize(
    ("scope", "second_count"), [(TrackingScope.INVOCATION, 1), (TrackingScope.GLOBAL, 2)]
)
async def test_failures_count_per_invocation_or_across_invocations(
    scope: TrackingScope, second_count: int
) -> None:
    flaky = Flaky(failures=10)
    model = ScriptedModel(replies=[*_calls(1), "failed once", *_calls(2), "failed again"])
    plugin = ReflectAndRetryToolPlugin(max_retries=5, tracking_scope=scope)
    runner = await _runner(plugin, model, _flaky_tool(flaky))
    [first] = _responses(await _send(runner, "one"))
    [second] = _responses(await _send(runner, "two"))
    assert (first["retry_count"], second["retry_count"]) == (1, second_count)
    # a finished invocation's counts are not kept (only the global scope's are)
    assert list(plugin._failures) == ([] if scope is TrackingScope.INVOCATION else [scope_key()])


def scope_key() -> str:
    from adk_runtime.plugins.reflect_retry_tool_plugin import GLOBAL_SCOPE_KEY

    return GLOBAL_SCOPE_KEY


async def test_a_call_to_a_tool_that_does_not_exist_gets_guidance() -> None:
    flaky = Flaky(failures=0)
    replies = [function_call("lookup_number", {"n": 1}), *_calls(1), "It is 10."]
    model = ScriptedModel(replies=replies)
    runner = await _runner(ReflectAndRetryToolPlugin(), model, _flaky_tool(flaky))
    events = await _send(runner)
    wrong, right = _responses(events)
    assert (wrong["error_type"], wrong["retry_count"]) == ("ValueError", 1)
    assert "lookup_number" in wrong["error_details"]
    assert right == {"value": 10}
    assert flaky.calls == [1]


async def test_a_subclass_can_treat_a_result_as_a_failure() -> None:
    class StatusAware(ReflectAndRetryToolPlugin):
        async def extract_error_from_result(
            self,
            *,
            tool: BaseTool,
            tool_args: dict[str, Any],
            tool_context: ToolContext,
            result: Any,
        ) -> Any:
            return result if result.get("status") == "error" else None

    statuses = iter(["error", "ok"])

    def lookup(n: int) -> dict[str, Any]:
        """Look up n."""
        return {"status": next(statuses), "n": n}

    model = ScriptedModel(replies=[*_calls(1, 2), "done"])
    runner = await _runner(StatusAware(max_retries=1), model, lookup)
    first, second = _responses(await _send(runner))
    assert (first["error_type"], first["retry_count"]) == ("ToolError", 1)
    assert "'status': 'error'" in first["error_details"]
    assert second == {"status": "ok", "n": 2}


def test_settings_are_checked_and_kept() -> None:
    plugin = ReflectAndRetryToolPlugin()
    assert (plugin.name, plugin.max_retries, plugin.throw_exception_if_retry_exceeded) == (
        "reflect_retry_tool_plugin",
        3,
        True,
    )
    assert plugin.scope is TrackingScope.INVOCATION
    with pytest.raises(ValueError, match="max_retries"):
        ReflectAndRetryToolPlugin(max_retries=-1)
