"""LlmAgent on the loop: events, commits, state, output_key, instructions, tools."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent, LlmCallsLimitExceededError, MissingStateKeyError, RunConfig
from adk_runtime.models import LlmRequest
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import ToolContext
from tests.llm.helpers import flat, send, start, stored, texts


def remember(item: str, tool_context: ToolContext) -> dict[str, Any]:
    """Remember an item."""
    tool_context.state["item"] = item
    tool_context.state["temp:scratch"] = item.upper()
    return {"ok": True}


async def test_tool_state_rides_on_function_response(session_service: BaseSessionService) -> None:
    seen_temp: list[Any] = []

    def reply(request: LlmRequest) -> Any:
        if len(model.requests) == 1:
            return function_call("remember", {"item": "milk"})
        return "noted"

    model = ScriptedModel(handler=reply)

    async def peek(callback_context: Any, llm_request: LlmRequest) -> None:
        seen_temp.append(callback_context.state.get("temp:scratch"))

    agent = LlmAgent(name="a", model=model, tools=[remember], before_model_callback=peek)
    runner = await start(agent, session_service)
    events = await send(runner, "remember milk")

    assert [bool(e.get_function_calls()) for e in events] == [True, False, False]
    call_event, response_event, final = events
    assert response_event.get_function_responses()[0].response == {"ok": True}
    assert response_event.actions.state_delta == {"item": "milk"}  # temp: stripped
    assert call_event.actions.state_delta == {}
    assert texts([final]) == ["noted"]
    # the temp: write was visible to the next model step of the same invocation
    assert seen_temp == [None, "MILK"]
    session = await stored(runner)
    assert session.state == {"item": "milk"}
    assert [e.id for e in session.events[1:]] == [e.id for e in events]
    stored_response = session.events[2]
    assert stored_response.actions.state_delta == {"item": "milk"}
    # the model got the declaration without tool_context, and saw the tool result
    declaration = model.requests[0].config.tools[0].function_declarations[0]  # type: ignore[index]
    assert declaration.name == "remember"
    assert set(declaration.parameters_json_schema["properties"]) == {"item"}  # type: ignore[index]
    second = model.requests[1].contents
    assert second[-1].parts[0].function_response.response == {"ok": True}  # type: ignore[index,union-attr]
    # next invocation: temp: is gone
    await send(runner, "again")
    assert "temp:scratch" not in (await stored(runner)).state


async def test_output_key_on_final_event(session_service: BaseSessionService) -> None:
    agent = LlmAgent(name="a", model=ScriptedModel(replies=["Paris"]), output_key="city")
    runner = await start(agent, session_service)
    events = await send(runner, "capital of France?")
    assert events[-1].actions.state_delta == {"city": "Paris"}
    assert (await stored(runner)).state["city"] == "Paris"


async def test_instruction_templating(session_service: BaseSessionService) -> None:
    model = ScriptedModel(replies=["hi"])
    agent = LlmAgent(
        name="a",
        model=model,
        instruction=(
            "Greet {name} ({user:lang}) in {app:tone} {temp:mood?}{missing?}. Keep {not a key}."
        ),
    )
    runner = await start(
        agent, session_service, state={"name": "Ada", "user:lang": "fr", "app:tone": "warm"}
    )
    await send(runner, "hello")
    system = model.requests[0].config.system_instruction
    assert system == "Greet Ada (fr) in warm . Keep {not a key}."


async def test_callable_instruction_and_missing_key(session_service: BaseSessionService) -> None:
    model = ScriptedModel(replies=["ok"])
    agent = LlmAgent(name="a", model=model, instruction=lambda ctx: f"Agent {ctx.agent_name} {{x}}")
    runner = await start(agent, session_service)
    await send(runner, "hello")
    assert model.requests[0].config.system_instruction == "Agent a {x}"

    broken = LlmAgent(name="b", model=ScriptedModel(replies=["ok"]), instruction="Use {nope}")
    runner2 = await start(broken, session_service, session_id="s2")
    with pytest.raises(MissingStateKeyError, match="nope"):
        await send(runner2, "hello", session_id="s2")


async def test_history_contents_and_generation_config(session_service: BaseSessionService) -> None:
    model = ScriptedModel(replies=["one", "two"])
    config = types.GenerateContentConfig(temperature=0.1)
    agent = LlmAgent(name="a", model=model, generate_content_config=config, instruction="Be brief.")
    runner = await start(agent, session_service)
    await send(runner, "first")
    await send(runner, "second")
    contents = model.requests[1].contents
    assert [(c.role, c.parts[0].text) for c in contents] == [  # type: ignore[index]
        ("user", "first"),
        ("model", "one"),
        ("user", "second"),
    ]
    assert model.requests[1].config.temperature == 0.1
    assert config.system_instruction is None  # the agent's config is not mutated


async def test_include_contents_none(session_service: BaseSessionService) -> None:
    model = ScriptedModel(replies=["one", "two"])
    agent = LlmAgent(name="a", model=model, include_contents="none")
    runner = await start(agent, session_service)
    await send(runner, "first")
    await send(runner, "second")
    assert [c.parts[0].text for c in model.requests[1].contents] == ["second"]  # type: ignore[index]


async def test_include_contents_none_after_a_transfer_keeps_the_users_message(
    session_service: BaseSessionService,
) -> None:
    """The agent the conversation is handed to sees the message that led there, then the
    hand-over as context: the transfer does not start its turn."""
    helper_model = ScriptedModel(replies=["helped"])
    helper = LlmAgent(name="helper", model=helper_model, include_contents="none")
    root = LlmAgent(
        name="root",
        model=ScriptedModel(replies=[function_call("transfer_to_agent", {"agent_name": "helper"})]),
        sub_agents=[helper],
    )
    runner = await start(root, session_service)
    await send(runner, "please help")
    labels = flat(helper_model.requests[0].contents)
    assert labels[0] == "user:please help"
    assert labels[1].startswith("user:For context:")
    assert any("transfer_to_agent" in label for label in labels[2:])


async def test_include_contents_none_keeps_the_call_a_late_answer_answers(
    session_service: BaseSessionService,
) -> None:
    """A long-running call answered turns later: the answer is sent with its call, also when
    the user said something in between."""
    from adk_runtime.tools import LongRunningFunctionTool

    def start_job(name: str) -> dict[str, Any]:
        """Start a job."""
        return {"status": "started"}

    model = ScriptedModel(
        replies=[function_call("start_job", {"name": "build"}, id="job-1"), "waiting", "built"]
    )
    tool = LongRunningFunctionTool(start_job)
    agent = LlmAgent(name="ops", model=model, tools=[tool], include_contents="none")
    runner = await start(agent, session_service)
    await send(runner, "build it")
    await send(runner, "how is it going?")
    assert flat(model.requests[1].contents) == ["user:how is it going?"]
    done = types.FunctionResponse(id="job-1", name="start_job", response={"status": "done"})
    await send(runner, types.Content(role="user", parts=[types.Part(function_response=done)]))
    labels = flat(model.requests[2].contents)
    assert labels[0] == "user:build it"
    assert labels.index("call:job-1") < labels.index("response:job-1=None")


async def test_tool_that_raises(session_service: BaseSessionService) -> None:
    def explode(tool_context: ToolContext) -> str:
        """Fails."""
        tool_context.state["half"] = "written"
        raise RuntimeError("kaboom")

    def fine(tool_context: ToolContext) -> str:
        """Works."""
        tool_context.state["good"] = 1
        return "done"

    model = ScriptedModel(replies=[[function_call("explode"), function_call("fine")], "recovered"])
    agent = LlmAgent(name="a", model=model, tools=[explode, fine])
    runner = await start(agent, session_service)
    events = await send(runner, "go")
    responses = events[1].get_function_responses()
    assert responses[0].response == {"error": "RuntimeError: kaboom"}
    assert responses[1].response == {"result": "done"}
    assert events[1].actions.state_delta == {"good": 1}
    assert texts(events[-1:]) == ["recovered"]
    session = await stored(runner)
    assert "half" not in session.state
    assert session.state["good"] == 1


async def test_unknown_tool_and_bad_arguments(session_service: BaseSessionService) -> None:
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    model = ScriptedModel(
        replies=[
            [
                function_call("nope"),
                function_call("add", {"a": "x", "b": 1}),
                function_call("add", {"a": "2", "b": 3}),
            ],
            "ok",
        ]
    )
    runner = await start(LlmAgent(name="a", model=model, tools=[add]), session_service)
    events = await send(runner, "go")
    nope, bad, good = events[1].get_function_responses()
    assert "no tool 'nope'" in nope.response["error"]  # type: ignore[index]
    assert "Invalid arguments for add" in bad.response["error"]  # type: ignore[index]
    assert good.response == {"result": 5}


async def test_tools_run_concurrently(session_service: BaseSessionService) -> None:
    started: list[str] = []
    both = asyncio.Event()

    async def wait_a() -> str:
        """A."""
        started.append("a")
        if len(started) == 2:
            both.set()
        await asyncio.wait_for(both.wait(), 5)
        return "a"

    async def wait_b() -> str:
        """B."""
        started.append("b")
        if len(started) == 2:
            both.set()
        await asyncio.wait_for(both.wait(), 5)
        return "b"

    model = ScriptedModel(replies=[[function_call("wait_a"), function_call("wait_b")], "done"])
    runner = await start(LlmAgent(name="a", model=model, tools=[wait_a, wait_b]), session_service)
    events = await send(runner, "go")
    assert [r.response for r in events[1].get_function_responses()] == [
        {"result": "a"},
        {"result": "b"},
    ]


async def test_max_llm_calls(session_service: BaseSessionService) -> None:
    def ping() -> str:
        """Ping."""
        return "pong"

    model = ScriptedModel(handler=lambda request: function_call("ping"))
    runner = await start(LlmAgent(name="a", model=model, tools=[ping]), session_service)
    with pytest.raises(LlmCallsLimitExceededError):
        await send(runner, "loop", run_config=RunConfig(max_llm_calls=3))
    assert len(model.requests) == 3
    session = await stored(runner)
    # user event + 3 x (call, response): every completed step was committed
    assert len(session.events) == 7


async def test_sync_tool_does_not_block_the_loop(
    session_service: BaseSessionService, blockbuster: Any
) -> None:
    import time

    def slow(tool_context: ToolContext) -> str:
        """Sleeps (in a worker thread)."""
        time.sleep(0.01)
        tool_context.state["slept"] = True
        return "rested"

    model = ScriptedModel(replies=[function_call("slow"), "ok"])
    runner = await start(LlmAgent(name="a", model=model, tools=[slow]), session_service)
    events = await send(runner, "sleep")
    assert events[1].get_function_responses()[0].response == {"result": "rested"}
    assert (await stored(runner)).state["slept"] is True


async def test_model_error_response_is_committed(session_service: BaseSessionService) -> None:
    from adk_runtime.models import LlmResponse

    model = ScriptedModel(replies=[LlmResponse(error_code="429", error_message="slow down")])
    runner = await start(LlmAgent(name="a", model=model), session_service)
    events = await send(runner, "hi")
    assert [(e.error_code, e.error_message) for e in events] == [("429", "slow down")]
    assert (await stored(runner)).events[-1].error_code == "429"


async def test_max_llm_calls_is_per_invocation_across_agents(
    session_service: BaseSessionService,
) -> None:
    from adk_runtime.agents import SequentialAgent

    first = LlmAgent(name="first", model=ScriptedModel(replies=["1", "2"]))
    second = LlmAgent(name="second", model=ScriptedModel(replies=["3", "4"]))
    loop = SequentialAgent(name="seq", sub_agents=[first, second])
    runner = await start(loop, session_service)
    await send(runner, "go", run_config=RunConfig(max_llm_calls=2))
    with pytest.raises(LlmCallsLimitExceededError):
        await send(runner, "go", run_config=RunConfig(max_llm_calls=1))


async def test_sync_callbacks_run_off_the_loop(session_service: BaseSessionService) -> None:
    import time

    from adk_runtime.agents import CallbackContext

    def slow_before(callback_context: CallbackContext, llm_request: LlmRequest) -> None:
        time.sleep(0.01)  # would fail the blocking-call check on the loop
        callback_context.state["slept"] = True

    agent = LlmAgent(
        name="a", model=ScriptedModel(replies=["ok"]), before_model_callback=slow_before
    )
    runner = await start(agent, session_service)
    events = await send(runner, "hi")
    assert events[0].actions.state_delta == {"slept": True}


async def test_script_exhausted(session_service: BaseSessionService) -> None:
    from adk_runtime.testing import ScriptExhaustedError

    runner = await start(LlmAgent(name="a", model=ScriptedModel(replies=[])), session_service)
    with pytest.raises(ScriptExhaustedError, match="call #1"):
        await send(runner, "hi")


async def test_artifact_in_instruction(session_service: BaseSessionService) -> None:
    from adk_runtime.artifacts.memory import InMemoryArtifactService

    artifacts = InMemoryArtifactService()
    await artifacts.save_artifact(
        app_name="app",
        user_id="u1",
        session_id="s1",
        filename="style",
        artifact=types.Part(text="terse"),
    )
    model = ScriptedModel(replies=["ok"])
    agent = LlmAgent(name="a", model=model, instruction="Style: {artifact.style}{artifact.none?}")
    runner = await start(agent, session_service, artifact_service=artifacts)
    await send(runner, "hi")
    assert model.requests[0].config.system_instruction == "Style: terse"


async def test_several_complete_responses_are_separate_events(
    session_service: BaseSessionService,
) -> None:
    from adk_runtime.agents import CallbackContext
    from adk_runtime.models import LlmResponse

    def reply(text: str) -> LlmResponse:
        return LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))

    def mark(callback_context: CallbackContext, llm_response: LlmResponse) -> None:
        callback_context.state[llm_response.content.parts[0].text] = True  # type: ignore[union-attr,index]

    model = ScriptedModel(replies=[[reply("first"), reply("second")]])
    runner = await start(
        LlmAgent(name="a", model=model, after_model_callback=mark), session_service
    )
    events = await send(runner, "hi")
    assert texts(events) == ["first", "second"]
    assert events[0].id != events[1].id
    assert [e.actions.state_delta for e in events] == [{"first": True}, {"second": True}]
    assert texts((await stored(runner)).events) == ["hi", "first", "second"]
