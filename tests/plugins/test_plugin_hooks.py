"""Plugins in the loop: every hook at its point, before the agent's callbacks, short-circuits."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from google.genai import types

from adk_runtime.agents import CallbackContext, LlmAgent
from adk_runtime.errors import PluginError
from adk_runtime.models import LlmRequest, LlmResponse
from adk_runtime.runners import Runner
from adk_runtime.sessions import InMemorySessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import BaseTool, ToolContext
from tests.llm.helpers import APP, USER, send, stored, texts
from tests.plugins.recorder import Recorder


def lookup(city: str) -> dict[str, str]:
    """Look up the weather."""
    return {"weather": f"sunny in {city}"}


def broken(city: str) -> dict[str, str]:
    """A tool that fails."""
    raise RuntimeError("backend down")


def model_text(text: str) -> LlmResponse:
    return LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))


async def runner_for(agent: LlmAgent, *plugins: Recorder) -> Runner:
    service = InMemorySessionService()
    await service.create_session(app_name=APP, user_id=USER, session_id="s1")
    with pytest.warns(DeprecationWarning, match="App"):
        return Runner(app_name=APP, agent=agent, session_service=service, plugins=list(plugins))


async def test_every_hook_runs_at_its_point_of_the_loop() -> None:
    model = ScriptedModel(replies=[function_call("lookup", {"city": "Oslo"}), "Sunny."])
    plugin = Recorder()
    runner = await runner_for(LlmAgent(name="a", model=model, tools=[lookup]), plugin)
    events = await send(runner, "weather?")
    assert texts(events)[-1] == "Sunny."
    assert plugin.hooks() == [
        "on_user_message_callback",
        "before_run_callback",
        "before_agent_callback",
        "before_model_callback",
        "after_model_callback",
        "on_event_callback",  # the function call
        "before_tool_callback",
        "after_tool_callback",
        "on_event_callback",  # the function response
        "before_model_callback",
        "after_model_callback",
        "on_event_callback",  # the answer
        "after_agent_callback",
        "after_run_callback",
    ]
    [tool_call] = plugin.kwargs["before_tool_callback"]
    assert tool_call["tool_args"] == {"city": "Oslo"}
    assert plugin.kwargs["after_tool_callback"][0]["result"] == {"weather": "sunny in Oslo"}
    assert plugin.kwargs["before_agent_callback"][0]["agent"].name == "a"


async def test_plugins_run_in_order_and_the_first_answer_skips_the_rest() -> None:
    log: list[tuple[str, str]] = []
    agent_calls: list[str] = []

    def agent_before_model(callback_context: CallbackContext, llm_request: LlmRequest) -> None:
        agent_calls.append("agent")

    model = ScriptedModel(replies=[])
    first = Recorder("first", log)
    second = Recorder("second", log, before_model_callback=model_text("from plugin"))
    third = Recorder("third", log)
    agent = LlmAgent(name="a", model=model, before_model_callback=agent_before_model)
    runner = await runner_for(agent, first, second, third)
    events = await send(runner, "hi")
    assert texts(events) == ["from plugin"]
    before_model = [name for name, hook in log if hook == "before_model_callback"]
    assert before_model == ["first", "second"]  # third and the agent's callback skipped
    assert agent_calls == []
    assert model.requests == []


async def test_before_agent_plugin_replaces_the_run_and_its_state_is_committed() -> None:
    def answer(agent: Any, callback_context: CallbackContext) -> types.Content:
        callback_context.state["by_plugin"] = agent.name
        return types.Content(role="model", parts=[types.Part(text="closed today")])

    calls: list[str] = []
    model = ScriptedModel(replies=[])
    agent = LlmAgent(
        name="a",
        model=model,
        before_agent_callback=lambda callback_context: calls.append("agent"),
    )
    plugin = Recorder(before_agent_callback=answer)
    runner = await runner_for(agent, plugin)
    events = await send(runner, "hi")
    assert texts(events) == ["closed today"]
    assert events[0].author == "a"
    assert calls == []
    assert model.requests == []
    session = await stored(runner)
    assert session.state == {"by_plugin": "a"}
    assert texts(session.events) == ["hi", "closed today"]
    assert "after_agent_callback" not in plugin.hooks()  # the invocation ended


async def test_agent_callbacks_still_run_when_plugins_return_none() -> None:
    calls: list[str] = []

    def after_agent(callback_context: CallbackContext) -> types.Content:
        calls.append("agent after")
        return types.Content(role="model", parts=[types.Part(text="bye")])

    plugin = Recorder()
    agent = LlmAgent(
        name="a", model=ScriptedModel(replies=["hello"]), after_agent_callback=after_agent
    )
    runner = await runner_for(agent, plugin)
    assert texts(await send(runner, "hi")) == ["hello", "bye"]
    assert calls == ["agent after"]


async def test_after_model_plugin_replaces_the_response() -> None:
    plugin = Recorder(after_model_callback=model_text("[redacted]"))
    runner = await runner_for(LlmAgent(name="a", model=ScriptedModel(replies=["secret"])), plugin)
    assert texts(await send(runner, "hi")) == ["[redacted]"]
    assert texts((await stored(runner)).events) == ["hi", "[redacted]"]


async def test_on_model_error_plugin_answers_for_a_failing_model() -> None:
    def fail(request: LlmRequest) -> Any:
        raise ConnectionError("model unreachable")

    plugin = Recorder(on_model_error_callback=model_text("try again later"))
    runner = await runner_for(LlmAgent(name="a", model=ScriptedModel(handler=fail)), plugin)
    assert texts(await send(runner, "hi")) == ["try again later"]
    [call] = plugin.kwargs["on_model_error_callback"]
    assert isinstance(call["error"], ConnectionError)


async def test_before_tool_plugin_answers_instead_of_the_tool() -> None:
    ran: list[str] = []

    def agent_before_tool(tool: BaseTool, args: dict[str, Any], tool_context: ToolContext) -> None:
        ran.append("agent callback")

    def tool(city: str) -> dict[str, str]:
        """Never runs."""
        ran.append("tool")
        return {}

    model = ScriptedModel(replies=[function_call("tool", {"city": "Oslo"}), "ok"])
    plugin = Recorder(before_tool_callback={"cached": True})
    agent = LlmAgent(name="a", model=model, tools=[tool], before_tool_callback=agent_before_tool)
    runner = await runner_for(agent, plugin)
    events = await send(runner, "go")
    assert ran == []
    response = events[1].content.parts[0].function_response  # type: ignore[union-attr,index]
    assert response is not None
    assert response.response == {"cached": True}


async def test_after_tool_plugin_replaces_the_result() -> None:
    model = ScriptedModel(replies=[function_call("lookup", {"city": "Oslo"}), "ok"])
    plugin = Recorder(after_tool_callback={"weather": "hidden"})
    runner = await runner_for(LlmAgent(name="a", model=model, tools=[lookup]), plugin)
    events = await send(runner, "go")
    response = events[1].content.parts[0].function_response  # type: ignore[union-attr,index]
    assert response is not None
    assert response.response == {"weather": "hidden"}


async def test_on_tool_error_plugin_recovers_a_failing_tool() -> None:
    model = ScriptedModel(replies=[function_call("broken", {"city": "Oslo"}), "ok"])
    plugin = Recorder(on_tool_error_callback={"fallback": "cloudy"})
    runner = await runner_for(LlmAgent(name="a", model=model, tools=[broken]), plugin)
    events = await send(runner, "go")
    response = events[1].content.parts[0].function_response  # type: ignore[union-attr,index]
    assert response is not None
    assert response.response == {"fallback": "cloudy"}
    [call] = plugin.kwargs["on_tool_error_callback"]
    assert str(call["error"]) == "backend down"


async def test_on_user_message_plugin_replaces_what_is_stored_and_seen() -> None:
    def rewrite(invocation_context: Any, user_message: types.Content) -> types.Content:
        return types.Content(role="user", parts=[types.Part(text="rewritten")])

    model = ScriptedModel(replies=["ok"])
    runner = await runner_for(
        LlmAgent(name="a", model=model), Recorder(on_user_message_callback=rewrite)
    )
    await send(runner, "original")
    assert texts((await stored(runner)).events) == ["rewritten", "ok"]
    assert model.requests[0].contents[-1].parts[0].text == "rewritten"  # type: ignore[index]


async def test_before_run_plugin_answers_without_running_the_agent() -> None:
    model = ScriptedModel(replies=[])
    plugin = Recorder(
        before_run_callback=types.Content(role="model", parts=[types.Part(text="maintenance")])
    )
    runner = await runner_for(LlmAgent(name="a", model=model), plugin)
    events = await send(runner, "hi")
    assert [(e.author, texts([e])) for e in events] == [("model", ["maintenance"])]
    assert model.requests == []
    assert plugin.hooks()[-2:] == ["on_event_callback", "after_run_callback"]
    assert texts((await stored(runner)).events) == ["hi", "maintenance"]


async def test_a_failing_plugin_stops_the_run_and_the_error_hooks_are_told() -> None:
    def explode(**kwargs: Any) -> None:
        raise KeyError("plugin bug")

    failing = Recorder("failing", before_model_callback=explode)
    watcher = Recorder("watcher")
    runner = await runner_for(
        LlmAgent(name="a", model=ScriptedModel(replies=["x"])), watcher, failing
    )
    with pytest.raises(PluginError, match=r"'failing'.*before_model_callback") as raised:
        await send(runner, "hi")
    assert isinstance(raised.value.__cause__, KeyError)
    assert isinstance(raised.value, RuntimeError)  # what google-adk raises
    hooks = watcher.hooks()
    assert "on_agent_error_callback" in hooks
    assert hooks[-1] == "on_run_error_callback"
    assert "after_run_callback" not in hooks
    [agent_error] = watcher.kwargs["on_agent_error_callback"]
    assert agent_error["agent"].name == "a"
    assert isinstance(agent_error["error"], PluginError)


async def test_after_run_runs_when_the_caller_stops_reading_early() -> None:
    plugin = Recorder()
    model = ScriptedModel(replies=[function_call("lookup", {"city": "Oslo"}), "done"])
    runner = await runner_for(LlmAgent(name="a", model=model, tools=[lookup]), plugin)
    stream = runner.run_async(
        user_id=USER,
        session_id="s1",
        new_message=types.Content(role="user", parts=[types.Part(text="go")]),
    )
    await anext(stream)
    await stream.aclose()
    assert plugin.hooks()[-1] == "after_run_callback"


async def test_an_unknown_tool_goes_to_the_error_hooks_with_a_stand_in_tool() -> None:
    model = ScriptedModel(replies=[function_call("nope", {"x": 1}), "ok"])
    plugin = Recorder(on_tool_error_callback={"answered": "by plugin"})
    runner = await runner_for(LlmAgent(name="a", model=model, tools=[lookup]), plugin)
    events = await send(runner, "go")
    response = events[1].content.parts[0].function_response  # type: ignore[union-attr,index]
    assert response is not None
    assert (response.name, response.response) == ("nope", {"answered": "by plugin"})
    [call] = plugin.kwargs["on_tool_error_callback"]
    assert call["tool"].name == "nope"
    assert isinstance(call["error"], ValueError)
    assert "after_tool_callback" not in plugin.hooks()  # no tool ran


async def test_an_unknown_tool_unanswered_is_an_error_for_the_model() -> None:
    model = ScriptedModel(replies=[function_call("nope", {}), "ok"])
    runner = await runner_for(LlmAgent(name="a", model=model, tools=[lookup]), Recorder())
    events = await send(runner, "go")
    response = events[1].content.parts[0].function_response  # type: ignore[union-attr,index]
    assert response is not None
    assert response.response == {"error": "There is no tool 'nope'; available: ['lookup']."}


@pytest.mark.parametrize("include", [True, False])
async def test_an_agent_tool_runs_with_the_callers_plugins_unless_told_not_to(
    include: bool,
) -> None:
    from adk_runtime.tools import AgentTool

    helper = LlmAgent(name="helper", model=ScriptedModel(replies=["42"]))
    model = ScriptedModel(replies=[function_call("helper", {"request": "answer?"}), "It is 42."])
    plugin = Recorder()
    agent = LlmAgent(name="a", model=model, tools=[AgentTool(helper, include_plugins=include)])
    runner = await runner_for(agent, plugin)
    assert texts(await send(runner, "go"))[-1] == "It is 42."
    agents = [call["agent"].name for call in plugin.kwargs["before_agent_callback"]]
    assert agents == (["a", "helper"] if include else ["a"])
    runs = plugin.hooks().count("before_run_callback")
    assert runs == (2 if include else 1)


@pytest.mark.parametrize("rewrites", [False, True])
async def test_a_retried_message_is_not_given_to_the_plugins_again(rewrites: bool) -> None:
    def rewrite(user_message: types.Content, **_: Any) -> types.Content | None:
        if not rewrites:
            return None
        return types.Content(role="user", parts=[types.Part(text="rewritten")])

    plugin = Recorder(on_user_message_callback=rewrite)
    runner = await runner_for(LlmAgent(name="a", model=ScriptedModel(replies=["once"])), plugin)
    message = types.Content(role="user", parts=[types.Part(text="hi")])
    for _ in range(2):
        replies = [
            e
            async for e in runner.run_async(
                user_id=USER, session_id="s1", new_message=message, idempotency_key="m-1"
            )
        ]
        assert texts(replies) == ["once"]
    assert plugin.hooks().count("on_user_message_callback") == 1
    session = await runner.session_service.get_session(
        app_name=runner.app_name, user_id=USER, session_id="s1"
    )
    assert session is not None
    assert texts(session.events) == ["rewritten" if rewrites else "hi", "once"]


async def test_an_artifact_saved_by_a_before_agent_plugin_is_recorded_on_its_event() -> None:
    from adk_runtime.artifacts.memory import InMemoryArtifactService

    async def save(agent: Any, callback_context: CallbackContext) -> None:
        await callback_context.save_artifact("note.txt", types.Part(text="kept"))

    service = InMemorySessionService()
    await service.create_session(app_name=APP, user_id=USER, session_id="s1")
    from adk_runtime.apps import App

    app = App(
        name=APP,
        root_agent=LlmAgent(name="a", model=ScriptedModel(replies=["ok"])),
        plugins=[Recorder(before_agent_callback=save)],
    )
    runner = Runner(app=app, session_service=service, artifact_service=InMemoryArtifactService())
    events = await send(runner, "hi")
    assert events[0].actions.artifact_delta == {"note.txt": 0}
    assert events[0].content is None
    assert texts(events) == ["ok"]


async def test_a_plugin_failing_in_one_tool_call_cancels_the_calls_running_beside_it() -> None:
    finished: list[str] = []
    started = asyncio.Event()

    async def slow(city: str) -> str:
        """A slow lookup with a side effect at its end."""
        started.set()
        await asyncio.sleep(0.5)
        finished.append(city)
        return "done"

    async def explode(**kwargs: Any) -> None:
        if kwargs["tool"].name == "lookup":
            await started.wait()  # the slow call is running when the run fails
            raise KeyError("plugin bug")

    model = ScriptedModel(
        replies=[
            [function_call("slow", {"city": "Rome"}), function_call("lookup", {"city": "Oslo"})]
        ]
    )
    agent = LlmAgent(name="a", model=model, tools=[slow, lookup])
    runner = await runner_for(agent, Recorder("failing", before_tool_callback=explode))
    with pytest.raises(PluginError, match="before_tool_callback"):
        await send(runner, "weather?")
    await asyncio.sleep(0.8)
    assert finished == []  # cancelled with the run, not left writing after it


@pytest.mark.parametrize("hook", ["after_run_callback", "on_user_message_callback"])
async def test_a_failing_run_hook_is_reported_once_as_the_runs_error(hook: str) -> None:
    def explode(**kwargs: Any) -> None:
        raise KeyError("plugin bug")

    failing = Recorder("failing", **{hook: explode})
    watcher = Recorder("watcher")
    runner = await runner_for(
        LlmAgent(name="a", model=ScriptedModel(replies=["x"])), failing, watcher
    )
    with pytest.raises(PluginError, match=rf"'failing'.*{hook}"):
        await send(runner, "hi")
    [reported] = watcher.kwargs["on_run_error_callback"]
    assert isinstance(reported["error"], PluginError)
    stored_texts = texts((await stored(runner)).events)
    if hook == "on_user_message_callback":
        assert stored_texts == []  # the message was never stored
        assert "after_run_callback" not in watcher.hooks()
    else:
        assert stored_texts == ["hi", "x"]
