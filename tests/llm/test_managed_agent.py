"""ManagedAgent: a hosted agent on the (fake, stateful) Managed Agents API, every store.

The real google-genai client talks to the fake Interactions API on loopback; the Runner
stores the turns, whose interaction and sandbox ids carry the next turn on.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import google.genai as genai
import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent, ManagedAgent, ReadonlyContext, RunConfig, StreamingMode
from adk_runtime.errors import ConfigurationError, UnsupportedFeatureError
from adk_runtime.sessions import BaseSessionService
from adk_runtime.tools import FunctionTool, RemoteMcpServer, google_search
from tests.llm.fake_gemini import FakeGemini, serving
from tests.llm.fake_interactions import text_step
from tests.llm.helpers import send, start, stored, texts


@pytest.fixture
async def fake(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeGemini]:
    async with serving(monkeypatch) as server:
        yield server


class _Closing:
    """Closes a google-genai client with the fake server's models."""

    def __init__(self, client: genai.Client) -> None:
        self.client = client

    async def aclose(self) -> None:
        await self.client.aio.aclose()


def client_of(fake: FakeGemini) -> genai.Client:
    options = types.HttpOptions(base_url=fake.base_url)
    client = genai.Client(api_key="test-key", http_options=options)
    fake.clients.append(_Closing(client))
    return client


def token_header(ctx: ReadonlyContext) -> dict[str, str]:
    return {"Authorization": f"Bearer token-of-{ctx.user_id}"}


async def test_turns_continue_the_hosted_interaction_and_its_sandbox(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    api = fake.interactions
    api.turns += [[text_step("Cloned the repo.")], [text_step("12 tests pass.")]]
    agent = ManagedAgent(
        name="coder",
        agent_id="agents/coder-1",
        api_client=client_of(fake),
        environment={"type": "remote"},
        instruction="You work on {repo}.",
        tools=[
            google_search,
            types.Tool(url_context=types.UrlContext()),
            RemoteMcpServer(
                url="https://mcp.example/api",
                name="tickets",
                headers={"X-Team": "core", "Authorization": "static"},
                allowed_tools=["list_tickets"],
                header_provider=token_header,
            ),
        ],
    )
    runner = await start(agent, session_service, state={"repo": "adk_runtime"})
    assert texts(await send(runner, "clone it")) == ["Cloned the repo."]
    assert texts(await send(runner, "run the tests")) == ["12 tests pass."]
    first, second = api.created
    assert first["agent"] == "agents/coder-1"
    assert first["background"] is True
    assert first["stream"] is True
    assert first["system_instruction"] == "You work on adk_runtime."
    assert first["environment"] == {"type": "remote"}
    assert first["input"] == [
        {"type": "user_input", "content": [{"type": "text", "text": "clone it"}]}
    ]
    assert first["tools"] == [
        {"type": "google_search"},
        {"type": "url_context"},
        {
            "type": "mcp_server",
            "url": "https://mcp.example/api",
            "name": "tickets",
            "headers": {"X-Team": "core", "Authorization": "Bearer token-of-u1"},
            "allowed_tools": [{"tools": ["list_tickets"]}],
        },
    ]
    assert "previous_interaction_id" not in first
    # The next turn continues the interaction in the sandbox the API made for the first.
    assert second["previous_interaction_id"] == "interaction-1"
    assert second["environment"] == "environment-1"
    assert [step["content"][0]["text"] for step in second["input"]] == ["run the tests"]
    events = (await stored(runner)).events
    assert [(e.author, e.interaction_id, e.environment_id) for e in events] == [
        ("user", None, None),
        ("coder", "interaction-1", "environment-1"),
        ("user", None, None),
        ("coder", "interaction-2", "environment-1"),
    ]


async def test_streamed_pieces_reach_an_sse_caller_only_and_are_never_stored(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    api = fake.interactions
    api.turns += [[text_step("First answer.")], [text_step("Second answer.")]]
    agent = ManagedAgent(name="helper", agent_id="agents/h", api_client=client_of(fake))
    runner = await start(agent, session_service)
    quiet = await send(runner, "one")
    assert [e.partial for e in quiet] == [False]
    assert texts(quiet) == ["First answer."]
    loud = await send(runner, "two", run_config=RunConfig(streaming_mode=StreamingMode.SSE))
    assert [bool(e.partial) for e in loud] == [True, True, False]
    assert texts(loud) == ["Second ", "answer.", "Second answer."]
    assert len({e.id for e in loud}) == 1  # the pieces carry the id of the reply they make
    assert texts((await stored(runner)).events) == ["one", "First answer.", "two", "Second answer."]


async def test_a_refused_turn_is_a_stored_error_event_and_the_next_turn_starts_afresh(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    api = fake.interactions
    # A 400: google-genai retries a 429 or 5xx itself (with the next queued turn).
    refused = {"error": {"code": 400, "status": "INVALID_ARGUMENT", "message": "bad agent"}}
    api.turns += [[text_step("Hi.")], (400, refused), [text_step("Back.")]]
    agent = ManagedAgent(name="helper", agent_id="agents/h", api_client=client_of(fake))
    runner = await start(agent, session_service)
    await send(runner, "hello")
    [error] = await send(runner, "again")
    assert (error.error_code, error.error_message, error.turn_complete) == (
        "400",
        "bad agent",
        True,
    )
    assert texts(await send(runner, "and again")) == ["Back."]
    # The error carries no interaction: the third turn continues the first.
    assert api.created[2]["previous_interaction_id"] == "interaction-1"
    stored_events = (await stored(runner)).events
    assert [e.error_code for e in stored_events if e.author == "helper"] == [None, "400", None]


def greet(name: str) -> str:
    """Greet someone."""
    return f"hi {name}"


@pytest.mark.parametrize(
    ("tool", "message"),
    [
        (greet, "would run in this process"),
        (types.Tool(function_declarations=[types.FunctionDeclaration(name="f")]), "server-side"),
        (types.Tool(mcp_servers=[types.McpServer(name="m")]), "RemoteMcpServer"),
        (types.Tool(retrieval=types.Retrieval()), "google_search, code_execution"),
    ],
)
def test_tools_this_process_would_run_are_refused_when_the_agent_is_built(
    tool: Any, message: str
) -> None:
    with pytest.raises(UnsupportedFeatureError, match=message):
        ManagedAgent(name="m", agent_id="agents/m", tools=[tool])


async def test_a_function_tool_is_refused_when_the_turn_resolves_it(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    agent = ManagedAgent(
        name="m", agent_id="agents/m", api_client=client_of(fake), tools=[FunctionTool(greet)]
    )
    runner = await start(agent, session_service)
    with pytest.raises(UnsupportedFeatureError, match="'greet' would run in this process"):
        await send(runner, "hi")
    assert fake.interactions.created == []  # nothing was sent


def test_a_vertex_client_outside_global_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "p")
    regional = genai.Client(vertexai=True, project="p", location="us-central1")
    with pytest.raises(ConfigurationError, match=r"'global'.*'us-central1'"):
        ManagedAgent(name="m", agent_id="agents/m", api_client=regional)
    in_global = genai.Client(vertexai=True, project="p", location="global")
    assert ManagedAgent(name="m", agent_id="agents/m", api_client=in_global).api_client is in_global


async def test_an_instruction_provider_is_used_as_it_answers(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    async def provide(ctx: ReadonlyContext) -> str:
        return f"Literal {{braces}} for {ctx.agent_name}."

    fake.interactions.turns.append([text_step("ok")])
    agent = ManagedAgent(
        name="m", agent_id="agents/m", api_client=client_of(fake), instruction=provide
    )
    runner = await start(agent, session_service)
    await send(runner, "go")
    assert fake.interactions.created[0]["system_instruction"] == "Literal {braces} for m."


async def test_a_single_turn_managed_agent_answers_its_parents_call(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    call = {"functionCall": {"name": "researcher", "args": {"request": "find X"}}}
    parent_reply = {"candidates": [{"content": {"role": "model", "parts": [call]}}]}
    fake.replies += [
        (200, parent_reply),
        (
            200,
            {
                "candidates": [
                    {
                        "content": {"role": "model", "parts": [{"text": "X is 4."}]},
                        "finishReason": "STOP",
                    }
                ]
            },
        ),
    ]
    fake.interactions.turns.append([text_step("X = 4 (source: docs).")])
    researcher = ManagedAgent(
        name="researcher",
        description="Researches.",
        agent_id="agents/r",
        api_client=client_of(fake),
        mode="single_turn",
    )
    from adk_runtime.models import Gemini

    model = Gemini(model="gemini-2.5-flash", base_url=fake.base_url)
    fake.clients.append(model)
    parent = LlmAgent(name="lead", model=model, sub_agents=[researcher])
    runner = await start(parent, session_service)
    events = await send(runner, "what is X?")
    assert texts(events)[-1] == "X is 4."
    # The hosted agent got the call's request as its message.
    [created] = fake.interactions.created
    assert "find X" in created["input"][0]["content"][0]["text"]
    # Its answer went back to the parent's model as the call's result.
    answered = fake.requests[1][1]["contents"][-1]["parts"][0]["functionResponse"]
    assert answered["name"] == "researcher"
    assert "X = 4 (source: docs)." in str(answered["response"])


async def test_an_api_error_text_that_cannot_be_stored_is_stored_made_storable(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    refused = {"error": {"code": 400, "status": "INVALID_ARGUMENT", "message": "bad \u0000 id"}}
    fake.interactions.turns.append((400, refused))
    agent = ManagedAgent(name="helper", agent_id="agents/h", api_client=client_of(fake))
    runner = await start(agent, session_service)
    [error] = await send(runner, "hello")
    assert (error.error_code, error.error_message) == ("400", "bad \ufffd id")
    [stored_error] = (await stored(runner)).events[1:]
    assert stored_error.error_message == "bad \ufffd id"
    assert stored_error.turn_complete is True
