"""google-adk 2.13's LlmAgent fields, on the scripted model: schemas, instructions, error
callbacks, planners, code executors, generate_content_config checks."""

from __future__ import annotations

import logging
import sys
from typing import Any

import pydantic
import pytest
from google.genai import types

from adk_runtime.agents import (
    CallbackContext,
    InvocationContext,
    LlmAgent,
    ReadonlyContext,
    SequentialAgent,
)
from adk_runtime.code_executors import BuiltInCodeExecutor, UnsafeLocalCodeExecutor
from adk_runtime.errors import ConfigurationError
from adk_runtime.models import LlmRequest, LlmResponse
from adk_runtime.planners import BuiltInPlanner, PlanReActPlanner
from adk_runtime.planners.plan_re_act_planner import FINAL_ANSWER_TAG, PLANNING_TAG
from adk_runtime.sessions import BaseSessionService, InMemorySessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import BaseTool, ToolContext
from adk_runtime.tools.set_model_response_tool import SetModelResponseTool
from tests.llm.helpers import send, start, stored, texts


class Forecast(pydantic.BaseModel):
    city: str
    celsius: int
    note: str | None = None


def lookup(city: str) -> dict[str, Any]:
    """Look up the temperature of a city."""
    return {"city": city, "celsius": 21}


def system_text(request: LlmRequest) -> str:
    value = request.config.system_instruction
    assert isinstance(value, str)
    return value


# --- output_schema / input_schema -------------------------------------------------------


async def test_output_schema_without_tools_is_the_response_schema_and_the_stored_value(
    session_service: BaseSessionService,
) -> None:
    model = ScriptedModel(replies=['```json\n{"city": "Oslo", "celsius": 4}\n```'])
    agent = LlmAgent(name="a", model=model, output_schema=Forecast, output_key="forecast")
    runner = await start(agent, session_service)
    events = await send(runner, "weather?")
    request = model.requests[0]
    assert request.config.response_schema is Forecast
    assert request.config.response_mime_type == "application/json"
    assert events[-1].actions.state_delta == {"forecast": {"city": "Oslo", "celsius": 4}}
    assert (await stored(runner)).state["forecast"] == {"city": "Oslo", "celsius": 4}


async def test_output_schema_of_other_types_is_parsed_json() -> None:
    model = ScriptedModel(replies=['["a", "b"]'])
    agent = LlmAgent(name="a", model=model, output_schema=list[str], output_key="items")
    runner = await start(agent, InMemorySessionService())
    await send(runner, "list")
    assert (await stored(runner)).state["items"] == ["a", "b"]


@pytest.mark.parametrize(
    ("schema", "reply"), [(list[str], '["a", 2]'), (dict[str, int], '{"a": "many"}'), (int, '"7x"')]
)
async def test_an_answer_of_another_type_is_validated_too(schema: Any, reply: str) -> None:
    model = ScriptedModel(replies=[reply])
    agent = LlmAgent(name="a", model=model, output_schema=schema, output_key="answer")
    runner = await start(agent, InMemorySessionService())
    with pytest.raises(pydantic.ValidationError):
        await send(runner, "answer?")
    assert "answer" not in (await stored(runner)).state


@pytest.mark.parametrize(
    ("schema", "bad", "good", "stored_value"),
    [
        (list[str], ["a", {"b": 1}], ["a", "b"], ["a", "b"]),
        (dict[str, int], {"a": "many"}, {"a": 1, "b": 2}, {"a": 1, "b": 2}),
        (int, "seven", "7", 7),
    ],
)
async def test_set_model_response_takes_and_checks_other_types_under_response(
    schema: Any, bad: Any, good: Any, stored_value: Any
) -> None:
    declared = SetModelResponseTool(schema)._get_declaration().parameters_json_schema
    assert isinstance(declared, dict)
    assert declared["required"] == ["response"]
    model = ScriptedModel(
        replies=[
            function_call("set_model_response", {"response": bad}),
            function_call("set_model_response", {"response": good}),
        ]
    )
    agent = LlmAgent(
        name="a", model=model, tools=[lookup], output_schema=schema, output_key="answer"
    )
    runner = await start(agent, InMemorySessionService())
    events = await send(runner, "answer?")
    retry = events[1].get_function_responses()[0].response
    assert retry is not None
    assert "error" in retry
    assert (await stored(runner)).state["answer"] == stored_value


async def test_an_answer_that_breaks_the_schema_fails_the_turn_and_stores_nothing() -> None:
    model = ScriptedModel(replies=['{"city": "Oslo"}'])
    agent = LlmAgent(name="a", model=model, output_schema=Forecast, output_key="forecast")
    runner = await start(agent, InMemorySessionService())
    with pytest.raises(pydantic.ValidationError):
        await send(runner, "weather?")
    session = await stored(runner)
    assert "forecast" not in session.state
    assert [e.author for e in session.events] == ["user"]


async def test_output_schema_with_tools_answers_through_set_model_response() -> None:
    model = ScriptedModel(
        replies=[
            function_call("lookup", {"city": "Rome"}),
            function_call("set_model_response", {"city": "Rome", "celsius": "x"}),
            function_call("set_model_response", {"city": "Rome", "celsius": 21}),
        ]
    )
    agent = LlmAgent(
        name="a", model=model, tools=[lookup], output_schema=Forecast, output_key="forecast"
    )
    runner = await start(agent, InMemorySessionService())
    events = await send(runner, "weather in Rome?")
    first = model.requests[0]
    assert first.config.response_schema is None  # models cannot combine it with tools
    assert set(first.tools_dict) == {"lookup", "set_model_response"}
    assert "set_model_response" in system_text(first)
    retry = events[3].get_function_responses()[0].response
    assert retry is not None
    assert "celsius" in retry["error"]  # the invalid answer is sent back for a retry
    assert texts(events[-1:]) == ['{"city": "Rome", "celsius": 21}']
    assert events[-1].is_final_response()
    assert events[-1].actions.state_delta == {"forecast": {"city": "Rome", "celsius": 21}}
    assert len(model.requests) == 3  # the valid call ends the turn


def test_set_model_response_declares_the_schema_fields() -> None:
    declaration = SetModelResponseTool(Forecast)._get_declaration()
    schema = declaration.parameters_json_schema
    assert isinstance(schema, dict)
    assert schema["required"] == ["city", "celsius"]
    listed = SetModelResponseTool(list[Forecast])._get_declaration().parameters_json_schema
    assert isinstance(listed, dict)
    assert listed["required"] == ["items"]


async def test_an_agent_tool_takes_the_input_schema_and_answers_the_output_schema() -> None:
    from adk_runtime.tools import AgentTool

    class Question(pydantic.BaseModel):
        topic: str
        depth: int = 1

    inner_model = ScriptedModel(replies=['{"city": "Oslo", "celsius": 4}'])
    expert = LlmAgent(
        name="expert", model=inner_model, input_schema=Question, output_schema=Forecast
    )
    tool = AgentTool(expert)
    declaration = tool._get_declaration()
    assert declaration is not None
    assert declaration.parameters_json_schema == Question.model_json_schema()
    outer_model = ScriptedModel(
        replies=[
            function_call("expert", {"depth": "x"}),
            function_call("expert", {"topic": "weather"}),
            "done",
        ]
    )
    outer = LlmAgent(name="outer", model=outer_model, tools=[tool])
    runner = await start(outer, InMemorySessionService())
    events = await send(runner, "ask")
    invalid = events[1].get_function_responses()[0].response
    assert invalid is not None
    assert "topic" in invalid["error"]
    answer = events[3].get_function_responses()[0].response
    assert answer == {"city": "Oslo", "celsius": 4}
    sent = inner_model.requests[0].contents[-1].parts[0].text  # type: ignore[index]
    assert sent == '{"topic":"weather","depth":1}'


# --- instructions ------------------------------------------------------------------------


async def test_global_instruction_of_the_root_comes_first_for_every_agent() -> None:
    model = ScriptedModel(
        replies=[function_call("transfer_to_agent", {"agent_name": "steps"}), "one", "two"]
    )
    first = LlmAgent(name="first", model=model, instruction="I am first, {user:name}.")
    second = LlmAgent(name="second", model=model, instruction="I am second.")
    steps = SequentialAgent(name="steps", sub_agents=[first, second])
    boss = LlmAgent(
        name="boss",
        model=model,
        global_instruction="Company voice for {user:name}.",
        sub_agents=[steps],
    )
    second.global_instruction = "only the root's counts"
    runner = await start(boss, InMemorySessionService(), state={"user:name": "Ada"})
    await send(runner, "hi")
    assert system_text(model.requests[0]).startswith("Company voice for Ada.")
    assert system_text(model.requests[1]) == "Company voice for Ada.\n\nI am first, Ada."
    assert system_text(model.requests[2]) == "Company voice for Ada.\n\nI am second."


async def test_static_instruction_is_the_system_part_and_instruction_moves_to_content() -> None:
    model = ScriptedModel(replies=["ok", "ok"])
    agent = LlmAgent(
        name="a",
        model=model,
        static_instruction="You are a {careful} assistant.",  # verbatim, never templated
        instruction="The user is {user:name}.",
    )
    runner = await start(agent, InMemorySessionService(), state={"user:name": "Ada"})
    await send(runner, "first")
    await send(runner, "second")
    for request in model.requests:
        assert system_text(request) == "You are a {careful} assistant."
    contents = model.requests[1].contents
    assert [c.role for c in contents] == ["user", "model", "user", "user"]
    dynamic = contents[2].parts[0].text  # type: ignore[index]
    assert dynamic is not None
    assert dynamic.endswith("The user is Ada.")
    assert contents[3].parts[0].text == "second"  # type: ignore[index]


async def test_the_moved_instruction_never_separates_a_call_from_its_response() -> None:
    def clock() -> str:
        """The time."""
        return "noon"

    model = ScriptedModel(replies=[function_call("clock", {}), "It is noon."])
    agent = LlmAgent(
        name="a",
        model=model,
        static_instruction="You tell the time.",
        instruction="Be brief.",
        tools=[clock],
    )
    runner = await start(agent, InMemorySessionService())
    await send(runner, "time?")
    contents = model.requests[1].contents
    calls = [i for i, c in enumerate(contents) if any(p.function_call for p in c.parts or [])]
    answers = [i for i, c in enumerate(contents) if any(p.function_response for p in c.parts or [])]
    assert answers == [calls[0] + 1]  # the response right after its call
    assert contents[-1].parts[0].text.endswith("Be brief.")  # type: ignore[index,union-attr]


async def test_static_instruction_accepts_content_and_rejects_other_objects() -> None:
    model = ScriptedModel(replies=["ok"])
    static = types.Content(role="user", parts=[types.Part(text="A."), types.Part(text="B.")])
    agent = LlmAgent(name="a", model=model, static_instruction=static)
    runner = await start(agent, InMemorySessionService())
    await send(runner, "hi")
    assert system_text(model.requests[0]) == "A.\n\nB."
    with pytest.raises(pydantic.ValidationError, match="static_instruction must be"):
        LlmAgent(name="b", model=ScriptedModel(replies=["x"]), static_instruction=object())


async def test_canonical_instruction_tells_strings_from_providers() -> None:
    service = InMemorySessionService()
    session = await service.create_session(app_name="x", user_id="u", state={"k": "v"})
    from adk_runtime.agents import InvocationContext

    agent = LlmAgent(name="a", model="m", instruction="Hello {k}")
    ctx = InvocationContext(
        invocation_id="e-1", session=session, agent=agent, session_service=service
    )
    assert await agent.canonical_instruction(ReadonlyContext(ctx)) == ("Hello {k}", False)

    async def provider(context: ReadonlyContext) -> str:
        return f"state has {context.state['k']}"

    agent.instruction = provider
    agent.global_instruction = "g"
    assert await agent.canonical_instruction(ReadonlyContext(ctx)) == ("state has v", True)
    assert await agent.canonical_global_instruction(ReadonlyContext(ctx)) == ("g", False)


# --- error callbacks ---------------------------------------------------------------------


class _Broken(ScriptedModel):
    async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False):  # type: ignore[override]
        self.requests.append(llm_request)
        raise ConnectionError("model down")
        yield  # pragma: no cover


async def test_on_model_error_callback_recovers_or_lets_the_error_through() -> None:
    seen: list[str] = []

    def passes(callback_context: CallbackContext, llm_request: LlmRequest, error: Exception):
        seen.append(f"passes:{type(error).__name__}")

    async def recovers(
        callback_context: CallbackContext, llm_request: LlmRequest, error: Exception
    ) -> LlmResponse:
        callback_context.state["recovered"] = str(error)
        return LlmResponse(content=types.Content(role="model", parts=[types.Part(text="sorry")]))

    agent = LlmAgent(name="a", model=_Broken(), on_model_error_callback=[passes, recovers])
    runner = await start(agent, InMemorySessionService())
    events = await send(runner, "hi")
    assert texts(events) == ["sorry"]
    assert seen == ["passes:ConnectionError"]
    assert (await stored(runner)).state == {"recovered": "model down"}

    failing = LlmAgent(name="b", model=_Broken(), on_model_error_callback=passes)
    runner = await start(failing, InMemorySessionService())
    with pytest.raises(ConnectionError):
        await send(runner, "hi")


def explode(city: str) -> str:
    """Always fails."""
    raise RuntimeError(f"no data for {city}")


async def test_on_tool_error_callback_answers_for_the_tool() -> None:
    def recover(
        tool: BaseTool, args: dict[str, Any], tool_context: ToolContext, error: Exception
    ) -> dict[str, Any]:
        tool_context.state["tool_error"] = tool.name
        return {"fallback": str(error), "args": args}

    model = ScriptedModel(replies=[function_call("explode", {"city": "Oslo"}), "done"])
    agent = LlmAgent(name="a", model=model, tools=[explode], on_tool_error_callback=recover)
    runner = await start(agent, InMemorySessionService())
    events = await send(runner, "go")
    response = events[1].get_function_responses()[0].response
    assert response == {"fallback": "no data for Oslo", "args": {"city": "Oslo"}}
    assert events[1].actions.state_delta == {"tool_error": "explode"}


async def test_without_a_recovery_a_failing_tool_is_answered_with_an_error() -> None:
    model = ScriptedModel(replies=[function_call("explode", {"city": "Oslo"}), "done"])
    agent = LlmAgent(
        name="a", model=model, tools=[explode], on_tool_error_callback=lambda **_: None
    )
    runner = await start(agent, InMemorySessionService())
    events = await send(runner, "go")
    response = events[1].get_function_responses()[0].response
    assert response == {"error": "RuntimeError: no data for Oslo"}


# --- planners ----------------------------------------------------------------------------


async def test_built_in_planner_sets_the_thinking_config() -> None:
    model = ScriptedModel(replies=["ok"])
    thinking = types.ThinkingConfig(include_thoughts=True, thinking_budget=64)
    agent = LlmAgent(
        name="a",
        model=model,
        planner=BuiltInPlanner(thinking_config=thinking),
        generate_content_config=types.GenerateContentConfig(temperature=0.1),
    )
    runner = await start(agent, InMemorySessionService())
    await send(runner, "hi")
    config = model.requests[0].config
    assert config.thinking_config == thinking
    assert config.temperature == 0.1
    assert agent.generate_content_config is not None
    assert agent.generate_content_config.thinking_config is None  # the agent's copy untouched


async def test_two_thinking_configs_warn_and_the_planners_is_sent() -> None:
    model = ScriptedModel(replies=["ok"])
    planned = types.ThinkingConfig(thinking_budget=64)
    with pytest.warns(UserWarning, match="sets thinking_config twice.*uses the planner's"):
        agent = LlmAgent(
            name="a",
            model=model,
            planner=BuiltInPlanner(thinking_config=planned),
            generate_content_config=types.GenerateContentConfig(
                thinking_config=types.ThinkingConfig(thinking_budget=1024)
            ),
        )
    runner = await start(agent, InMemorySessionService())
    await send(runner, "hi")
    assert model.requests[0].config.thinking_config == planned


async def test_plan_re_act_planner_instructs_and_splits_the_answer_from_the_notes() -> None:
    reply = f"{PLANNING_TAG}1. think\n{FINAL_ANSWER_TAG}It is 21 degrees."
    model = ScriptedModel(replies=[reply, "again"])
    agent = LlmAgent(name="a", model=model, planner=PlanReActPlanner(), output_key="answer")
    runner = await start(agent, InMemorySessionService())
    events = await send(runner, "weather?")
    assert FINAL_ANSWER_TAG in system_text(model.requests[0])
    parts = events[-1].content.parts  # type: ignore[union-attr]
    assert parts is not None
    assert [(p.text, p.thought) for p in parts] == [
        ("1. think\n", True),
        ("It is 21 degrees.", None),
    ]
    assert events[-1].actions.state_delta == {"answer": "It is 21 degrees."}
    await send(runner, "and now?")
    sent = model.requests[1].contents[1].parts  # the model's earlier turn, thoughts unflagged
    assert sent is not None
    assert all(not part.thought for part in sent)
    stored_parts = (await stored(runner)).events[1].content.parts  # type: ignore[union-attr]
    assert stored_parts is not None
    assert stored_parts[0].thought is True  # the session keeps them


# --- code executors ----------------------------------------------------------------------


async def test_built_in_code_executor_declares_gemini_code_execution() -> None:
    model = ScriptedModel(model="gemini-2.5-flash", replies=["ok"])
    agent = LlmAgent(name="a", model=model, code_executor=BuiltInCodeExecutor())
    runner = await start(agent, InMemorySessionService())
    await send(runner, "compute")
    tools = model.requests[0].config.tools or []
    assert any(isinstance(t, types.Tool) and t.code_execution is not None for t in tools)

    other = LlmAgent(
        name="b", model=ScriptedModel(replies=["x"]), code_executor=BuiltInCodeExecutor()
    )
    runner = await start(other, InMemorySessionService())
    with pytest.raises(ConfigurationError, match="Gemini"):
        await send(runner, "compute")


def test_the_local_executor_needs_an_explicit_opt_in_and_warns() -> None:
    with pytest.raises(ConfigurationError, match="allow_unsafe_local_execution"):
        UnsafeLocalCodeExecutor()
    with pytest.warns(UserWarning, match="runs code written by a model"):
        UnsafeLocalCodeExecutor(allow_unsafe_local_execution=True)


async def test_the_local_executor_runs_the_code_block_in_a_child_process() -> None:
    with pytest.warns(UserWarning, match="runs code written by a model"):
        executor = UnsafeLocalCodeExecutor(allow_unsafe_local_execution=True, timeout_seconds=20)
    code = "import sys\nprint(sum(range(5)), sys.flags.isolated)"
    model = ScriptedModel(
        replies=[f"Let me compute.\n```python\n{code}\n```\nignored", "It is 10."]
    )
    agent = LlmAgent(name="a", model=model, code_executor=executor)
    runner = await start(agent, InMemorySessionService())
    events = await send(runner, "sum?")
    parts = events[0].content.parts  # type: ignore[union-attr]
    assert parts is not None
    assert parts[0].text == "Let me compute.\n"
    assert parts[1].executable_code is not None
    assert parts[1].executable_code.code == code
    result = events[1].content.parts[0].code_execution_result  # type: ignore[union-attr,index]
    assert result is not None
    assert result.outcome == types.Outcome.OUTCOME_OK
    assert result.output == "10 1\n"  # ran in an isolated (-I) interpreter
    assert texts(events[-1:]) == ["It is 10."]
    assert len(model.requests) == 2


async def test_the_local_executor_runs_code_of_any_size_and_any_bytes() -> None:
    """The program is not an argument: code over the OS's argument cap runs, and a NUL in
    it is Python's SyntaxError in the result, not an exception of the executor."""
    from adk_runtime.code_executors.code_execution_utils import CodeExecutionInput

    with pytest.warns(UserWarning, match="runs code written by a model"):
        executor = UnsafeLocalCodeExecutor(allow_unsafe_local_execution=True, timeout_seconds=20)
    ctx = InvocationContext(
        invocation_id="i",
        agent=LlmAgent(name="a"),
        session=await InMemorySessionService().create_session(app_name="x", user_id="u"),
        session_service=InMemorySessionService(),
    )
    big = "data = '" + "x" * 300_000 + "'\nprint(len(data))"
    result = await executor.execute_code(ctx, CodeExecutionInput(code=big))
    assert (result.stdout, result.exit_code) == ("300000\n", 0)
    result = await executor.execute_code(ctx, CodeExecutionInput(code="print(1)\0"))
    assert result.exit_code != 0
    assert "SyntaxError" in result.stderr
    result = await executor.execute_code(
        ctx, CodeExecutionInput(code="import sys\nprint(repr(sys.stdin.read()))")
    )
    assert result.stdout == "''\n"  # the code's own stdin is empty


async def test_the_local_executor_reports_failures_and_stops_after_the_retries() -> None:
    with pytest.warns(UserWarning, match="runs code written by a model"):
        executor = UnsafeLocalCodeExecutor(
            allow_unsafe_local_execution=True, error_retry_attempts=1
        )
    bad = "```python\nraise SystemExit(3)\n```"
    model = ScriptedModel(replies=[bad, bad, bad])
    agent = LlmAgent(name="a", model=model, code_executor=executor)
    runner = await start(agent, InMemorySessionService())
    events = await send(runner, "go")
    outcomes = [
        part.code_execution_result.outcome
        for event in events
        for part in (event.content.parts or [] if event.content else [])
        if part.code_execution_result is not None
    ]
    assert outcomes == [types.Outcome.OUTCOME_FAILED] * 2
    assert len(model.requests) == 3  # the third block is not run: the turn ends


# --- generate_content_config -------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "field"),
    [
        (types.GenerateContentConfig(tools=[types.Tool(code_execution={})]), "tools"),
        (types.GenerateContentConfig(system_instruction="x"), "instruction"),
        (types.GenerateContentConfig(response_schema=Forecast), "output_schema"),
        (
            types.GenerateContentConfig(http_options=types.HttpOptions(base_url="http://x")),
            "base_url",
        ),
    ],
)
def test_generate_content_config_rejects_what_has_its_own_field(
    config: types.GenerateContentConfig, field: str
) -> None:
    with pytest.raises(pydantic.ValidationError, match=field):
        LlmAgent(name="a", model="m", generate_content_config=config)


def test_generation_settings_passed_as_agent_arguments_are_pointed_to_the_config() -> None:
    with pytest.raises(pydantic.ValidationError, match=r"generate_content_config=.*temperature"):
        LlmAgent(name="a", model="m", temperature=0.2)  # type: ignore[call-arg]
    with pytest.raises(pydantic.ValidationError, match=r"LlmAgent\(instruction=\.\.\.\)"):
        LlmAgent(name="a", model="m", system_instruction="x")  # type: ignore[call-arg]


def test_a_plain_config_is_kept() -> None:
    config = types.GenerateContentConfig(temperature=0.3)
    assert LlmAgent(name="a", model="m", generate_content_config=config).generate_content_config


def test_run_config_rejects_max_llm_calls_of_sys_maxsize() -> None:
    from adk_runtime.agents import RunConfig

    with pytest.raises(pydantic.ValidationError, match=f"less than {sys.maxsize}"):
        RunConfig(max_llm_calls=sys.maxsize)
    assert RunConfig(max_llm_calls=sys.maxsize - 1).max_llm_calls == sys.maxsize - 1


def test_run_config_reads_adk_max_llm_calls_and_coerces_modalities(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from adk_runtime.agents import RunConfig

    monkeypatch.setenv("ADK_MAX_LLM_CALLS", "7")
    assert RunConfig().max_llm_calls == 7
    assert RunConfig(max_llm_calls=9).max_llm_calls == 9
    monkeypatch.setenv("ADK_MAX_LLM_CALLS", "many")
    assert RunConfig().max_llm_calls == 500
    assert "ADK_MAX_LLM_CALLS" in caplog.text
    modalities = RunConfig(response_modalities=["audio", "TEXT"]).response_modalities
    assert modalities == [types.Modality.AUDIO, types.Modality.TEXT]


def test_clone_copies_the_tree_without_the_parent() -> None:
    class Counter(LlmAgent):
        def count(self, callback_context: CallbackContext) -> None:
            callback_context.state[self.name] = 1

    leaf = LlmAgent(name="leaf", model="m", tools=[lookup])
    original = Counter(name="top", model="m", sub_agents=[leaf])
    original.before_agent_callback = original.count
    holder = SequentialAgent(name="holder", sub_agents=[original])
    twin = original.clone(update={"name": "twin"})
    assert twin.name == "twin"
    assert twin.parent_agent is None
    assert holder.sub_agents == [original]
    assert original.parent_agent is holder
    assert twin.sub_agents[0] is not leaf
    assert twin.sub_agents[0].parent_agent is twin
    assert twin.sub_agents[0].tools == [lookup]
    assert twin.sub_agents[0].tools is not leaf.tools
    callback = twin.before_agent_callback
    assert getattr(callback, "__self__", None) is twin  # rebound to the copy
    with pytest.raises(ValueError, match="parent_agent"):
        original.clone(update={"parent_agent": None})
    with pytest.raises(ValueError, match="nonexistent fields"):
        original.clone(update={"colour": "red"})


async def test_set_default_model_is_used_by_agents_without_one() -> None:
    default = ScriptedModel(replies=["from the default"])
    original = LlmAgent._default_model  # restored for the tests after this one
    LlmAgent.set_default_model(default)
    try:
        runner = await start(LlmAgent(name="a"), InMemorySessionService())
        assert texts(await send(runner, "hi")) == ["from the default"]
    finally:
        LlmAgent.set_default_model(original)
    with pytest.raises(TypeError, match="got int"):
        LlmAgent.set_default_model(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="non-empty"):
        LlmAgent.set_default_model("")
    with pytest.raises(ValueError, match="Move your tools"):
        LlmAgent.validate_generate_content_config(
            types.GenerateContentConfig(tools=[types.Tool(code_execution={})])
        )


async def test_streamed_structured_output_is_validated_once_complete() -> None:
    from adk_runtime.agents import RunConfig, StreamingMode

    model = ScriptedModel(replies=['{"city": "Oslo", "celsius": 4}'])
    agent = LlmAgent(name="a", model=model, output_schema=Forecast, output_key="forecast")
    runner = await start(agent, InMemorySessionService())
    events = await send(runner, "weather?", run_config=RunConfig(streaming_mode=StreamingMode.SSE))
    assert [e.partial for e in events] == [True, True, True, True, None]
    assert all(not e.actions.state_delta for e in events[:-1])
    assert events[-1].actions.state_delta == {"forecast": {"city": "Oslo", "celsius": 4}}


def test_plan_re_act_keeps_the_first_group_of_calls_only() -> None:
    planner = PlanReActPlanner()
    call = types.Part(function_call=types.FunctionCall(name="lookup", args={"city": "Oslo"}))
    second = types.Part(function_call=types.FunctionCall(name="lookup", args={"city": "Rome"}))
    nameless = types.Part(function_call=types.FunctionCall(name="", args={}))
    parts = [
        types.Part(text=f"{PLANNING_TAG}look it up"),
        nameless,
        call,
        second,
        types.Part(text="after the calls"),
        call,
    ]
    kept = planner.process_planning_response(None, parts)  # type: ignore[arg-type]
    assert kept is not None
    assert [(p.text, p.thought) for p in kept[:1]] == [("look it up", True)]
    assert kept[1:] == [call, second]
    assert planner.process_planning_response(None, []) is None  # type: ignore[arg-type]


async def test_a_callbacks_answer_is_stored_under_output_key() -> None:
    def cached(callback_context: CallbackContext) -> types.Content:
        return types.Content(role="model", parts=[types.Part(text="cached answer")])

    model = ScriptedModel(replies=["never asked"])
    agent = LlmAgent(name="a", model=model, output_key="result", before_agent_callback=cached)
    runner = await start(agent, InMemorySessionService())
    assert texts(await send(runner, "hi")) == ["cached answer"]
    assert (await stored(runner)).state["result"] == "cached answer"
    assert model.requests == []


def test_only_the_agents_own_final_answer_is_stored() -> None:
    from adk_runtime.agents._structured_output import save_output
    from adk_runtime.events import Event

    agent = LlmAgent(name="a", model="m", output_key="result")

    def answer(author: str, **kwargs: Any) -> Event:
        content = types.Content(role="model", parts=[types.Part(text="x")])
        return Event(author=author, invocation_id="e-1", content=content, **kwargs)

    for event, expected in [
        (answer("a"), {"result": "x"}),
        (answer("b"), {}),  # another agent's answer (e.g. after a transfer)
        (answer("A"), {}),  # names are case-sensitive
        (answer("a", partial=True), {}),
    ]:
        save_output(agent, event)
        assert event.actions.state_delta == expected


def test_sub_agents_sharing_a_name_are_reported_once_each(
    caplog: pytest.LogCaptureFixture,
) -> None:
    twins = [LlmAgent(name=name) for name in ("twin", "solo", "twin", "twin", "pair", "pair")]
    with caplog.at_level(logging.WARNING, logger="adk_runtime.core.base_agent"):
        LlmAgent(name="parent", sub_agents=twins)
    (record,) = caplog.records
    assert "`pair`, `twin`" in record.getMessage()
    assert "solo" not in record.getMessage()
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="adk_runtime.core.base_agent"):
        LlmAgent(name="fine", sub_agents=[LlmAgent(name="a"), LlmAgent(name="b")])
    assert caplog.records == []


async def test_static_instruction_takes_an_uploaded_file_as_a_file_part() -> None:
    model = ScriptedModel(replies=["ok"])
    handbook = types.File(uri="https://files.test/handbook", mime_type="application/pdf")
    agent = LlmAgent(name="a", model=model, static_instruction=["Use the handbook.", handbook])
    assert agent.static_instruction == ["Use the handbook.", handbook]  # kept as given
    runner = await start(agent, InMemorySessionService())
    await send(runner, "hi")
    request = model.requests[0]
    assert system_text(request) == "Use the handbook."
    (file_part,) = [p for c in request.contents for p in c.parts or [] if p.file_data]
    assert file_part.file_data == types.FileData(
        file_uri="https://files.test/handbook", mime_type="application/pdf"
    )
    with pytest.raises(pydantic.ValidationError, match="needs its uri and mime_type"):
        LlmAgent(name="b", model=model, static_instruction=types.File(uri="https://files.test/x"))
