"""What a tool or a model returns that cannot be stored never fails the turn (every backend)."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.agents._storable import storable_content, unstorable_part
from adk_runtime.core.tool_context import ToolContext
from adk_runtime.models import LlmResponse
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel, function_call
from tests.llm.helpers import send, start, stored, texts


class Opaque:
    """An object JSON cannot hold."""


def returns_an_object(tool_context: ToolContext) -> dict[str, Any]:
    """Look something up."""
    tool_context.state["looked_up"] = True
    return {"rows": [{"id": 1, "handle": Opaque()}]}


def returns_a_nul(tool_context: ToolContext) -> str:
    """Read a file."""
    tool_context.state["looked_up"] = True
    return "header\x00binary"


def returns_a_lone_surrogate(tool_context: ToolContext) -> dict[str, Any]:
    """Decode something badly."""
    tool_context.state["looked_up"] = True
    return {"text": "broken \ud800 text"}


@pytest.mark.parametrize(
    ("tool", "where"),
    [
        (returns_an_object, "response['rows'][0]['handle']: a value of type Opaque"),
        (returns_a_nul, "response['result']: a string with a NUL character"),
        (returns_a_lone_surrogate, "response['text']: a value of type str"),
    ],
)
async def test_the_model_is_told_and_the_turn_goes_on(
    session_service: BaseSessionService, tool: Callable[..., Any], where: str
) -> None:
    name = tool.__name__
    model = ScriptedModel(replies=[function_call(name, {}), "Sorry, that lookup failed."])
    agent = LlmAgent(name="helper", model=model, tools=[tool])
    runner = await start(agent, session_service)
    events = await send(runner, "look it up")

    [response] = events[1].get_function_responses()
    error = response.response["error"]  # type: ignore[index]
    assert error.startswith("The tool's result cannot be stored (")
    assert where in error
    assert "binary" not in error  # the value itself is not echoed
    assert texts(events[-1:]) == ["Sorry, that lookup failed."]
    # the model's next request carried the error as the call's response
    sent = model.requests[1].contents[-1].parts[0].function_response  # type: ignore[index]
    assert sent is not None
    assert sent.response == {"error": error}
    session = await stored(runner)
    assert [e.id for e in session.events[1:]] == [e.id for e in events]
    assert session.events[2].get_function_responses()[0].response == {"error": error}
    assert "looked_up" not in session.state  # what the failed call wrote is discarded


async def test_a_state_write_that_cannot_be_stored_fails_the_call(
    session_service: BaseSessionService,
) -> None:
    def remember(tool_context: ToolContext) -> str:
        """Remember things."""
        tool_context.state["temp:scratch"] = Opaque()  # never stored: fine
        tool_context.state["user:profile"] = {"name": "Ada", "avatar": Opaque()}
        return "remembered"

    model = ScriptedModel(replies=[function_call("remember", {}), "I could not save that."])
    agent = LlmAgent(name="helper", model=model, tools=[remember])
    runner = await start(agent, session_service)
    events = await send(runner, "remember me")
    [response] = events[1].get_function_responses()
    assert response.response == {
        "error": "What the tool wrote to the state cannot be stored (state['user:profile']"
        "['avatar']: values of type Opaque are not JSON-serializable)."
    }
    assert texts(events[-1:]) == ["I could not save that."]
    session = await stored(runner)
    assert len(session.events) == 4
    assert session.state == {}


async def test_temp_state_that_cannot_be_stored_is_no_failure(
    session_service: BaseSessionService,
) -> None:
    def scratch(tool_context: ToolContext) -> str:
        """Use scratch space."""
        tool_context.state["temp:handle"] = Opaque()
        tool_context.state["count"] = 1
        return "ok"

    model = ScriptedModel(replies=[function_call("scratch", {}), "done"])
    runner = await start(LlmAgent(name="helper", model=model, tools=[scratch]), session_service)
    events = await send(runner, "go")
    assert events[1].get_function_responses()[0].response == {"result": "ok"}
    assert (await stored(runner)).state == {"count": 1}


def test_storable_values_pass_and_the_first_bad_one_is_named() -> None:
    fine = {
        "when": datetime.datetime(2024, 1, 1),
        "tags": {"a"},
        "raw": b"\xff\x00",
        "nan": float("nan"),
        "nested": [{"k": ("t", 1)}],
    }
    assert unstorable_part(fine) is None
    assert unstorable_part({"a": [1, {"b": {Opaque()}}]}) == (
        "response['a'][1]['b'][0]: a value of type Opaque, which JSON cannot hold"
    )
    assert unstorable_part({"a\x00b": 1}) == "response: a key with a NUL character"
    long_key = "k" * 100
    found = unstorable_part({long_key: Opaque()})
    assert found is not None
    assert long_key not in found
    assert found.startswith("response['kkkk")


async def test_nul_and_lone_surrogates_in_a_model_reply_become_replacement_characters(
    session_service: BaseSessionService,
) -> None:
    received: list[str] = []

    def lookup(key: str) -> str:
        """Look a key up."""
        received.append(key)
        return "found"

    model = ScriptedModel(replies=[function_call("lookup", {"key": "a\x00b"}), "bin\x00ary \ud800"])
    agent = LlmAgent(name="helper", model=model, tools=[lookup])
    runner = await start(agent, session_service)
    events = await send(runner, "go")

    assert received == ["a\ufffdb"]  # the tool ran on what was stored
    assert events[0].get_function_calls()[0].args == {"key": "a\ufffdb"}
    assert texts(events[-1:]) == ["bin\ufffdary \ufffd"]
    session = await stored(runner)
    assert [e.content for e in session.events[1:]] == [e.content for e in events]


def test_storable_content_copies_only_when_needed() -> None:
    clean = types.Content(role="model", parts=[types.Part(text="fine")])
    assert storable_content(clean) is clean
    call = types.FunctionCall(name="f", args={"k\x00": ["v\x00", {"n": 1}]})
    dirty = types.Content(
        role="model", parts=[types.Part(text="ok"), types.Part(function_call=call)]
    )
    cleaned = storable_content(dirty)
    assert cleaned.parts is not None
    assert cleaned.parts[1].function_call is not None
    assert cleaned.parts[1].function_call.args == {"k\ufffd": ["v\ufffd", {"n": 1}]}
    assert call.args == {"k\x00": ["v\x00", {"n": 1}]}  # the model's own object is left alone
    assert cleaned.parts[0] is dirty.parts[0]  # type: ignore[index]


async def test_unstorable_characters_in_a_replys_other_fields_are_replaced_too(
    session_service: BaseSessionService,
) -> None:
    # A model (or the Interactions API) may answer an error text, a model name or an
    # interaction id holding a NUL or a lone surrogate: stored as replacement characters.
    reply = LlmResponse(
        error_code="E\x00",
        error_message="refused \x00 \ud800",
        model_version="m\x00",
        interaction_id="i\x001",
        environment_id="env\ud800",
        custom_metadata={"note": "a\x00b"},
    )
    runner = await start(
        LlmAgent(name="helper", model=ScriptedModel(replies=[reply])), session_service
    )
    [event] = await send(runner, "go")
    [stored_event] = (await stored(runner)).events[1:]
    for seen in (event, stored_event):
        assert (seen.error_code, seen.error_message) == ("E\ufffd", "refused \ufffd \ufffd")
        assert (seen.model_version, seen.interaction_id) == ("m\ufffd", "i\ufffd1")
        assert seen.environment_id == "env\ufffd"
        assert seen.custom_metadata == {"note": "a\ufffdb"}
    assert reply.error_message == "refused \x00 \ud800"  # the model's own object is left alone
