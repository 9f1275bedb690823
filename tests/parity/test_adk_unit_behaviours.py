"""What google-adk's own unit tests check, asserted here in our words.

Each test below follows one of google-adk's (an older release's ``tests/unittests``, which
pass on google-adk 2.13; ``bench/adk_unit_tests.py`` runs them with rewritten imports): the
same scenario, the same observable behaviour. Where adk_runtime differs on purpose
(``docs/tutorials/porting-from-google-adk.md``, "What behaves differently"), the test asserts
everything that matches and pins the difference, so that neither drifts unnoticed.
"""

from __future__ import annotations

from typing import Any

import pytest
from google.genai import types

from adk_runtime.agents import Agent, SequentialAgent
from adk_runtime.artifacts import GcsArtifactService, InMemoryArtifactService
from adk_runtime.errors import ConfigurationError
from adk_runtime.events import Event
from adk_runtime.sessions import InMemorySessionService, VertexAiSessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import FunctionTool, ToolContext
from adk_runtime.tools.long_running_tool import LongRunningFunctionTool
from tests.llm.helpers import send, start, stored

# --- artifacts/test_artifact_service.py: the in-memory store --------------------------------

WHERE: dict[str, Any] = {"app_name": "app0", "user_id": "user0", "session_id": "123"}


def test_the_cloud_stores_import_from_their_packages_and_refuse_to_be_built() -> None:
    """google-adk's artifact tests import ``GcsArtifactService`` beside the in-memory store."""
    with pytest.raises(ConfigurationError):
        GcsArtifactService(bucket_name="test_bucket")
    with pytest.raises(ConfigurationError):
        VertexAiSessionService()


async def test_an_artifact_never_saved_loads_as_none() -> None:
    assert await InMemoryArtifactService().load_artifact(**WHERE, filename="filename") is None


async def test_an_artifact_saved_loads_and_is_gone_once_deleted() -> None:
    service = InMemoryArtifactService()
    artifact = types.Part.from_bytes(data=b"test_data", mime_type="text/plain")
    await service.save_artifact(**WHERE, filename="file456", artifact=artifact)
    assert await service.load_artifact(**WHERE, filename="file456") == artifact
    await service.delete_artifact(**WHERE, filename="file456")
    assert await service.load_artifact(**WHERE, filename="file456") is None


async def test_keys_and_versions_are_listed() -> None:
    service = InMemoryArtifactService()
    artifact = types.Part.from_bytes(data=b"test_data", mime_type="text/plain")
    names = [f"filename{i}" for i in range(5)]
    for name in names:
        await service.save_artifact(**WHERE, filename=name, artifact=artifact)
    assert await service.list_artifact_keys(**WHERE) == names
    for i in range(3):
        data = types.Part.from_bytes(data=i.to_bytes(2, "big"), mime_type="text/plain")
        await service.save_artifact(**WHERE, filename="versioned", artifact=data)
    assert await service.list_versions(**WHERE, filename="versioned") == [0, 1, 2]


# --- flows/llm_flows/test_agent_transfer.py: an LLM agent hands over to a SequentialAgent ----


def _transfer(to: str) -> types.Part:
    return function_call("transfer_to_agent", {"agent_name": to})


def _told(events: list[Event]) -> list[tuple[str, str]]:
    """(author, text, or the name of the call / response) of each event."""
    told: list[tuple[str, str]] = []
    for event in events:
        assert event.content is not None, f"a content-less event was yielded: {event.actions}"
        part = (event.content.parts or [types.Part()])[0]
        if part.function_call:
            told.append((event.author, f"call {part.function_call.args}"))
        elif part.function_response:
            told.append((event.author, f"response {part.function_response.name}"))
        else:
            told.append((event.author, part.text or ""))
    return told


def _single(name: str, model: ScriptedModel, **kwargs: Any) -> Agent:
    return Agent(
        name=name,
        model=model,
        disallow_transfer_to_parent=True,
        disallow_transfer_to_peers=True,
        **kwargs,
    )


async def test_a_transfer_to_a_sequential_agent_runs_it_through_and_the_root_answers_next() -> None:
    model = ScriptedModel(replies=[_transfer("seq"), "response1", "response2", "response3"])
    seq = SequentialAgent(name="seq", sub_agents=[_single("seq_1", model), _single("seq_2", model)])
    runner = await start(
        Agent(name="root", model=model, sub_agents=[seq]), InMemorySessionService()
    )

    first = await send(runner, "test1")
    # the stream google-adk gives: the workflow's checkpoints are stored, not yielded
    assert _told(first) == [
        ("root", "call {'agent_name': 'seq'}"),
        ("root", "response transfer_to_agent"),
        ("seq_1", "response1"),
        ("seq_2", "response2"),
    ]
    logged = (await stored(runner)).events
    assert [e.actions.agent_state for e in logged if e.actions.agent_state] == [
        {"current_sub_agent": "seq_1"},
        {"current_sub_agent": "seq_2"},
    ]
    assert logged[-1].author == "seq"
    assert logged[-1].actions.end_of_agent is True
    # a sequential agent that has run through hands the conversation back to the root
    assert _told(await send(runner, "test2")) == [("root", "response3")]


async def test_a_transfer_inside_the_sequence_returns_to_it_then_to_the_root() -> None:
    model = ScriptedModel(
        replies=[
            _transfer("seq"),
            "response1",
            _transfer("seq_2_1"),
            "response2",
            "response3",
            "response4",
        ]
    )
    middle = Agent(name="seq_2", model=model, sub_agents=[Agent(name="seq_2_1", model=model)])
    seq = SequentialAgent(
        name="seq", sub_agents=[_single("seq_1", model), middle, _single("seq_3", model)]
    )
    runner = await start(
        Agent(name="root", model=model, sub_agents=[seq]), InMemorySessionService()
    )

    assert _told(await send(runner, "test1")) == [
        ("root", "call {'agent_name': 'seq'}"),
        ("root", "response transfer_to_agent"),
        ("seq_1", "response1"),
        ("seq_2", "call {'agent_name': 'seq_2_1'}"),
        ("seq_2", "response transfer_to_agent"),
        ("seq_2_1", "response2"),
        ("seq_3", "response3"),
    ]
    assert _told(await send(runner, "test2")) == [("root", "response4")]


# --- flows/llm_flows/test_functions_long_running.py ------------------------------------------


def _shape(contents: list[types.Content]) -> list[tuple[str | None, Any]]:
    shaped: list[tuple[str | None, Any]] = []
    for content in contents:
        for part in content.parts or []:
            if part.function_call:
                shaped.append((content.role, ("call", part.function_call.args)))
            elif part.function_response:
                shaped.append((content.role, ("response", part.function_response.response)))
            else:
                shaped.append((content.role, part.text))
    return shaped


def _answer(response: dict[str, Any]) -> types.Content:
    answer = types.FunctionResponse(id="c1", name="increase_by_one", response=response)
    return types.Content(role="user", parts=[types.Part(function_response=answer)])


@pytest.mark.parametrize("pending", [{"status": "pending"}, "pending"])
async def test_a_long_running_call_runs_once_and_each_later_answer_reaches_the_model(
    pending: Any,
) -> None:
    model = ScriptedModel(
        replies=[
            function_call("increase_by_one", {"x": 1}, id="c1"),
            "response1",
            "response2",
            "response3",
        ]
    )
    calls: list[int] = []

    def increase_by_one(x: int, tool_context: ToolContext) -> Any:
        calls.append(x)
        return pending

    agent = Agent(name="root", model=model, tools=[LongRunningFunctionTool(func=increase_by_one)])
    runner = await start(agent, InMemorySessionService())

    first = await send(runner, "test1")
    assert [e.author for e in first] == ["root", "root"]
    assert first[0].long_running_tool_ids == {"c1"}
    assert first[1].get_function_responses()[0].name == "increase_by_one"
    # The difference (docs/tutorials/porting-from-google-adk.md): google-adk asks the model
    # once more after the pending result; here the invocation pauses there, so the model has
    # been called once.
    assert len(model.requests) == 1
    assert _shape(model.requests[0].contents) == [("user", "test1")]

    # every later answer (an update, the result, another result) is placed right after the
    # call and the model answers it; the function never runs again
    updates: list[dict[str, Any]] = [{"status": "still waiting"}, {"result": 2}, {"result": 3}]
    for turn, update in enumerate(updates, start=1):
        events = await send(runner, _answer(update))
        assert _told(events) == [("root", f"response{turn}")]
        assert _shape(model.requests[-1].contents) == [
            ("user", "test1"),
            ("model", ("call", {"x": 1})),
            ("user", ("response", update)),
        ]
    assert calls == [1]


# --- sessions/test_session_service.py: test_create_and_list_sessions (in memory) ------------


async def test_every_created_session_is_listed_newest_first() -> None:
    service = InMemorySessionService()
    ids = [f"session{i}" for i in range(5)]
    for session_id in ids:
        await service.create_session(app_name="my_app", user_id="test_user", session_id=session_id)
    listed = (await service.list_sessions(app_name="my_app", user_id="test_user")).sessions
    # google-adk lists in creation order; here newest update first, ties by id descending,
    # on every backend (the keyset pages rest on that order; see "What behaves differently"
    # in docs/tutorials/porting-from-google-adk.md)
    assert [s.id for s in listed] == ids[::-1]
    assert all(s.events == [] for s in listed)


# --- tools/test_function_tool.py: run_async with missing arguments -------------------------


def _two(arg1: Any, arg2: Any) -> Any:
    """Two required arguments."""
    raise AssertionError("must not run")


async def _four(arg1: Any, arg2: Any, arg3: Any, arg4: Any) -> Any:
    """Four required arguments (async)."""
    raise AssertionError("must not run")


def _four_sync(arg1: Any, arg2: Any, arg3: Any, arg4: Any) -> Any:
    """Four required arguments."""
    raise AssertionError("must not run")


@pytest.mark.parametrize(
    ("func", "given", "missing"),
    [
        (_two, {"arg1": "v"}, ["arg2"]),
        (_four, {"arg3": "v"}, ["arg1", "arg2", "arg4"]),
        (_four_sync, {"arg2": "v"}, ["arg1", "arg3", "arg4"]),
        (_four, {}, ["arg1", "arg2", "arg3", "arg4"]),
        (_four_sync, {}, ["arg1", "arg2", "arg3", "arg4"]),
    ],
)
async def test_missing_arguments_are_named_in_order_and_the_function_does_not_run(
    func: Any, given: dict[str, Any], missing: list[str]
) -> None:
    tool = FunctionTool(func)
    result = await tool.run_async(args=given, tool_context=None)  # type: ignore[arg-type]
    assert list(result) == ["error"]
    message = result["error"]
    assert f"`{tool.name}`" in message
    named = [line.removeprefix("- ") for line in message.splitlines() if line.startswith("- ")]
    assert named == missing  # google-adk's meaning: one line each, in the signature's order
    assert "again" in message  # and the model is asked to call again (our wording)
