"""RunConfig settings that shape one invocation's model requests, on the scripted model."""

from __future__ import annotations

import pydantic
import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent, RunConfig, SequentialAgent
from adk_runtime.events import Event
from adk_runtime.sessions import BaseSessionService, InMemorySessionService
from adk_runtime.testing import ScriptedModel, function_call
from tests.llm.helpers import send, start, stored, user


def lookup(city: str) -> str:
    """Look a city up."""
    return f"{city} is sunny"


def _text(content: types.Content) -> str:
    return "".join(part.text or "" for part in content.parts or [])


async def test_model_input_context_reaches_every_model_call_and_is_never_stored(
    session_service: BaseSessionService,
) -> None:
    model = ScriptedModel(replies=[function_call("lookup", {"city": "Rome"}), "sunny"])
    agent = LlmAgent(name="a", model=model, tools=[lookup])
    runner = await start(agent, session_service)
    await send(runner, "earlier")  # a first turn, so the message is not the first content
    model.requests.clear()
    model.replies.extend([function_call("lookup", {"city": "Rome"}), "sunny"])
    note = types.Content(role="user", parts=[types.Part(text="The user is in Italy.")])
    config = RunConfig(model_input_context=[note])
    await send(runner, "weather?", run_config=config)

    assert len(model.requests) == 2  # before and after the tool call
    for request in model.requests:
        texts = [_text(content) for content in request.contents]
        at = texts.index("weather?")
        assert texts[at - 1] == "The user is in Italy."
        assert texts.count("The user is in Italy.") == 1
    session = await stored(runner)
    assert all("Italy" not in _text(e.content) for e in session.events if e.content)
    assert config.model_input_context == [note]  # the caller's list is not changed


async def test_labels_and_http_options_merge_over_the_agents() -> None:
    agent_config = types.GenerateContentConfig(
        labels={"team": "search", "run": "agent"},
        http_options=types.HttpOptions(headers={"x-agent": "1"}, timeout=1000, api_version="v1"),
    )
    model = ScriptedModel(replies=["ok"])
    agent = LlmAgent(name="a", model=model, generate_content_config=agent_config)
    runner = await start(agent, InMemorySessionService())
    run_config = RunConfig(
        labels={"run": "invocation"},
        http_options=types.HttpOptions(headers={"x-run": "2"}, timeout=5000),
    )
    await send(runner, "hi", run_config=run_config)

    config = model.requests[0].config
    assert config.labels == {"team": "search", "run": "invocation", "adk_agent_name": "a"}
    assert config.http_options is not None
    assert config.http_options.headers == {"x-agent": "1", "x-run": "2"}
    assert config.http_options.timeout == 5000
    assert config.http_options.api_version == "v1"  # the agent's client settings stay
    # the agent's own configuration is untouched
    assert agent_config.labels == {"team": "search", "run": "agent"}
    assert agent_config.http_options is not None
    assert agent_config.http_options.headers == {"x-agent": "1"}


async def test_without_agent_options_the_invocations_are_used_as_they_are() -> None:
    model = ScriptedModel(replies=["ok"])
    runner = await start(LlmAgent(name="a", model=model), InMemorySessionService())
    options = types.HttpOptions(headers={"x-run": "2"})
    await send(runner, "hi", run_config=RunConfig(http_options=options, labels={"k": "v"}))
    config = model.requests[0].config
    assert config.labels == {"k": "v", "adk_agent_name": "a"}
    assert config.http_options is not None
    assert config.http_options.headers == {"x-run": "2"}
    assert config.http_options.headers is not options.headers


async def test_every_model_call_is_labelled_with_its_agent_unless_a_label_says_otherwise() -> None:
    model = ScriptedModel(replies=["one", "two"])
    helper = LlmAgent(name="helper", model=model)
    named = LlmAgent(
        name="named",
        model=model,
        generate_content_config=types.GenerateContentConfig(labels={"adk_agent_name": "billing"}),
    )
    await send(await start(helper, InMemorySessionService()), "hi")
    await send(await start(named, InMemorySessionService()), "hi")
    assert model.requests[0].config.labels == {"adk_agent_name": "helper"}
    assert model.requests[1].config.labels == {"adk_agent_name": "billing"}
    assert helper.generate_content_config is None  # the agent's own config is not touched


async def test_other_agents_thoughts_are_retold_only_when_asked() -> None:
    service = InMemorySessionService()
    model = ScriptedModel(replies=["one", "two"])
    runner = await start(LlmAgent(name="a", model=model), service)
    session = await stored(runner)
    thought = types.Part(text="weighing the options", thought=True)
    said = types.Part(text="pick B")
    await service.append_event(
        session,
        Event(
            author="planner",
            invocation_id="e-0",
            content=types.Content(role="model", parts=[thought, said]),
        ),
    )
    await send(runner, "which?")
    await send(
        runner, user("and now?"), run_config=RunConfig(include_thoughts_from_other_agents=True)
    )

    def retold(index: int) -> str:
        return " ".join(_text(c) for c in model.requests[index].contents)

    assert "[planner] said:\n<<<BEGIN_QUOTED_AGENT_CONTENT>>>\npick B\n" in retold(0)
    assert "weighing the options" not in retold(0)
    thought_told = "[planner] thought:\n<<<BEGIN_QUOTED_AGENT_CONTENT>>>\nweighing the options\n"
    assert thought_told in retold(1)


def test_a_base_url_per_invocation_is_refused() -> None:
    with pytest.raises(pydantic.ValidationError, match=r"http_options\.base_url is not used"):
        RunConfig(http_options=types.HttpOptions(base_url="https://example.invalid"))


async def test_the_current_turn_alone_never_retells_other_agents_thoughts() -> None:
    thought = types.Part(text="weighing the options", thought=True)
    planner = LlmAgent(
        name="planner",
        model=ScriptedModel(
            replies=[types.Content(role="model", parts=[thought, types.Part(text="pick B")])]
        ),
    )
    model = ScriptedModel(replies=["done"])
    writer = LlmAgent(name="writer", model=model, include_contents="none")
    runner = await start(SequentialAgent(name="flow", sub_agents=[planner, writer]),
                         InMemorySessionService())  # fmt: skip
    await send(
        runner, user("which?"), run_config=RunConfig(include_thoughts_from_other_agents=True)
    )
    retold = " ".join(_text(c) for c in model.requests[0].contents)
    assert "[planner] said:\n<<<BEGIN_QUOTED_AGENT_CONTENT>>>\npick B\n" in retold
    assert "weighing the options" not in retold
