"""VertexAiSearchTool, google_maps_grounding and GoogleSearchAgentTool on the fake Gemini API."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.core.readonly_context import ReadonlyContext
from adk_runtime.models import LlmResponse
from adk_runtime.sessions import BaseSessionService, InMemorySessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import VertexAiSearchTool, google_maps_grounding, google_search
from adk_runtime.tools._builtin import extract_model_name, is_gemini_model
from adk_runtime.tools.agent_tool import GROUNDING_STATE_KEY, AgentTool
from adk_runtime.tools.google_search_agent_tool import GoogleSearchAgentTool
from adk_runtime.tools.google_search_tool import GoogleSearchTool
from adk_runtime.tools.tool_configs import ToolConfig
from tests.llm.fake_gemini import FakeGemini, parts_body, text_body
from tests.llm.helpers import send, start, stored, texts
from tests.tools.test_builtin_tools import GROUNDED, fake, gemini, vertex_fake

__all__ = ["fake", "vertex_fake"]  # the fixtures

ENGINE = "projects/p/locations/global/collections/default_collection/engines/docs"
STORE = "projects/p/locations/global/collections/default_collection/dataStores/"


def lookup(code: str) -> dict[str, Any]:
    """Look up an order."""
    return {"code": code, "state": "shipped"}


async def test_vertex_ai_search_is_the_requests_retrieval_tool_on_vertex(
    vertex_fake: FakeGemini, session_service: BaseSessionService
) -> None:
    vertex_fake.replies.append((200, GROUNDED))
    tool = VertexAiSearchTool(
        search_engine_id=ENGINE,
        data_store_specs=[types.VertexAISearchDataStoreSpec(data_store=STORE + "faq")],
        filter='lang: ANY("en")',
        max_results=3,
    )
    runner = await start(
        LlmAgent(name="kb", model=gemini(vertex_fake), tools=[tool]), session_service
    )
    events = await send(runner, "how do refunds work?")
    path, body = vertex_fake.requests[0]
    assert path == "/v1beta1/publishers/google/models/gemini-2.5-flash:generateContent"
    assert body["tools"] == [
        {
            "retrieval": {  # google-genai sends these fields as written (Vertex takes both)
                "vertex_ai_search": {
                    "engine": ENGINE,
                    "data_store_specs": [{"data_store": STORE + "faq"}],
                    "filter": 'lang: ANY("en")',
                    "max_results": 3,
                }
            }
        }
    ]
    assert "functionDeclarations" not in str(body["tools"])  # nothing runs locally
    assert texts(events) == ["Oslo is sunny today."]
    session = await stored(runner)  # the grounding is committed with the answer
    assert session.events[-1].grounding_metadata == events[0].grounding_metadata


async def test_vertex_ai_search_is_declared_next_to_function_tools(
    vertex_fake: FakeGemini,
) -> None:
    vertex_fake.replies.append((200, text_body("ok")))
    tool = VertexAiSearchTool(data_store_id=STORE + "faq", bypass_multi_tools_limit=True)
    agent = LlmAgent(name="kb", model=gemini(vertex_fake), tools=[lookup, tool])
    assert [t.name for t in await agent.canonical_tools()] == ["lookup", "vertex_ai_search"]
    await send(await start(agent, InMemorySessionService()), "q")
    tools = vertex_fake.requests[0][1]["tools"]
    assert {"retrieval": {"vertex_ai_search": {"datastore": STORE + "faq"}}} in tools
    declared = [d["name"] for t in tools for d in t.get("functionDeclarations", [])]
    assert declared == ["lookup"]


def test_vertex_ai_search_needs_exactly_one_place_to_search() -> None:
    with pytest.raises(ValueError, match="Either data_store_id or search_engine_id"):
        VertexAiSearchTool()
    with pytest.raises(ValueError, match="not both"):
        VertexAiSearchTool(data_store_id="a", search_engine_id="b")
    spec = types.VertexAISearchDataStoreSpec(data_store=STORE + "faq")
    with pytest.raises(ValueError, match="search_engine_id must be specified"):
        VertexAiSearchTool(data_store_id="a", data_store_specs=[spec])
    tool = VertexAiSearchTool(data_store_id="a", name="kb", description="our docs")
    assert (tool.name, tool.description, tool.search_engine_id) == ("kb", "our docs", None)


class PerUserFilter(VertexAiSearchTool):
    """Searches only the documents of the session's user."""

    def _build_vertex_ai_search_config(self, readonly_context: ReadonlyContext) -> Any:
        owner = readonly_context.state.get("user:team", "none")
        return types.VertexAISearch(datastore=self.data_store_id, filter=f'team: ANY("{owner}")')


async def test_a_subclass_builds_the_search_from_the_session_state() -> None:
    model = ScriptedModel(model="gemini-2.5-flash", replies=["found"])
    agent = LlmAgent(name="kb", model=model, tools=[PerUserFilter(data_store_id="ds")])
    runner = await start(agent, InMemorySessionService(), state={"user:team": "billing"})
    await send(runner, "q")
    retrieval = model.requests[0].config.tools
    assert retrieval == [
        types.Tool(
            retrieval=types.Retrieval(
                vertex_ai_search=types.VertexAISearch(datastore="ds", filter='team: ANY("billing")')
            )
        )
    ]


async def test_vertex_ai_search_and_maps_need_a_gemini_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for tool in (VertexAiSearchTool(data_store_id="ds"), google_maps_grounding):
        model = ScriptedModel(replies=["x"])  # named "scripted": not a Gemini model
        runner = await start(
            LlmAgent(name="a", model=model, tools=[tool]), InMemorySessionService()
        )
        with pytest.raises(ValueError, match="not supported for model scripted"):
            await send(runner, "q")
    monkeypatch.setenv("ADK_DISABLE_GEMINI_MODEL_ID_CHECK", "1")
    model = ScriptedModel(model="in-house-model", replies=["near the station"])
    agent = LlmAgent(name="a", model=model, tools=[google_maps_grounding])
    assert texts(await send(await start(agent, InMemorySessionService()), "q")) == [
        "near the station"
    ]
    assert model.requests[0].config.tools == [types.Tool(google_maps=types.GoogleMaps())]


async def test_google_maps_grounding_on_vertex(vertex_fake: FakeGemini) -> None:
    vertex_fake.replies.append((200, GROUNDED))
    agent = LlmAgent(name="maps", model=gemini(vertex_fake), tools=[google_maps_grounding])
    events = await send(await start(agent, InMemorySessionService()), "cafes near the station?")
    assert vertex_fake.requests[0][1]["tools"] == [{"googleMaps": {}}]
    assert events[0].grounding_metadata is not None


def test_vertex_ai_search_from_an_agent_yaml_entry() -> None:
    entry = yaml.safe_load(
        f"""
        name: VertexAiSearchTool
        args:
          search_engine_id: {ENGINE}
          data_store_specs:
            - data_store: {STORE}faq
              filter: 'lang: ANY("en")'
          max_results: 5
        """
    )
    config = ToolConfig.model_validate(entry)
    assert config.args is not None
    tool = VertexAiSearchTool.from_config(config.args, "/agents/root.yaml")
    assert tool.data_store_specs == [
        types.VertexAISearchDataStoreSpec(data_store=STORE + "faq", filter='lang: ANY("en")')
    ]
    assert (tool.search_engine_id, tool.max_results) == (ENGINE, 5)


async def test_google_search_with_the_bypass_runs_in_a_search_agent(fake: FakeGemini) -> None:
    call = {"functionCall": {"name": "google_search_agent", "args": {"request": "oslo weather"}}}
    fake.replies.extend(
        [(200, parts_body([call])), (200, GROUNDED), (200, text_body("It is sunny in Oslo."))]
    )
    search = GoogleSearchTool(bypass_multi_tools_limit=True)
    agent = LlmAgent(name="root", model=gemini(fake), tools=[lookup, search])
    tools = await agent.canonical_tools()
    assert isinstance(tools[1], GoogleSearchAgentTool)
    assert tools[1].agent.tools == [google_search]
    events = await send(await start(agent, InMemorySessionService()), "weather in oslo?")
    root_tools, inner_tools = fake.requests[0][1]["tools"], fake.requests[1][1]["tools"]
    declared = [d["name"] for t in root_tools for d in t.get("functionDeclarations", [])]
    assert declared == ["lookup", "google_search_agent"]
    assert {"googleSearch": {}} not in root_tools  # Gemini < 3 refuses both in one request
    assert inner_tools == [{"googleSearch": {}}]
    answer = events[1].get_function_responses()[0].response
    assert answer == {"result": "Oslo is sunny today."}
    assert texts(events)[-1] == "It is sunny in Oslo."


async def test_google_search_stays_built_in_alone_or_without_the_bypass() -> None:
    alone = LlmAgent(name="a", model="gemini-2.5-flash", tools=[google_search])
    assert await alone.canonical_tools() == [google_search]
    beside = LlmAgent(name="b", model="gemini-2.5-flash", tools=[lookup, google_search])
    assert (await beside.canonical_tools())[1] is google_search
    search = GoogleSearchTool(bypass_multi_tools_limit=True, model="gemini-2.5-pro")
    parent = LlmAgent(
        name="p", model="gemini-2.5-flash", tools=[search], sub_agents=[LlmAgent(name="c")]
    )
    wrapped = (await parent.canonical_tools())[0]  # transfer targets count as other tools
    assert isinstance(wrapped, GoogleSearchAgentTool)
    assert wrapped.agent.model == "gemini-2.5-pro"  # the search tool's own model


def test_model_names() -> None:
    vertex = "projects/1/locations/us-central1/publishers/google/models/gemini-2.5-flash"
    assert extract_model_name(vertex) == "gemini-2.5-flash"
    assert extract_model_name("models/gemini-2.5-pro") == "gemini-2.5-pro"
    assert extract_model_name("gemini/gemini-2.5-flash") == "gemini-2.5-flash"
    assert extract_model_name("projects/odd/path") == "projects/odd/path"
    assert extract_model_name("openai/gpt-4o") == "openai/gpt-4o"
    assert is_gemini_model(vertex)
    assert not is_gemini_model("projects/1/locations/l/publishers/gemini/models/claude-3")
    assert not is_gemini_model("my-gemini-model")
    assert not is_gemini_model(None)


def test_default_and_live_default_models() -> None:
    assert LlmAgent.DEFAULT_MODEL == "gemini-3.5-flash"  # google-adk 2.13's
    original_live = LlmAgent._default_live_model
    LlmAgent.set_default_live_model("gemini-live-2.5-flash")
    try:
        child = LlmAgent(name="child")
        root = LlmAgent(name="root", sub_agents=[child])
        assert root.canonical_live_model.model == "gemini-live-2.5-flash"
        assert child.canonical_live_model.model == "gemini-live-2.5-flash"
        assert root.canonical_model.model == LlmAgent.DEFAULT_MODEL  # unchanged
        assert LlmAgent(name="n", model="gemini-2.5-pro").canonical_live_model.model == (
            "gemini-2.5-pro"
        )
    finally:
        LlmAgent.set_default_live_model(original_live)
    with pytest.raises(ValueError, match="non-empty"):
        LlmAgent.set_default_live_model("")
    with pytest.raises(TypeError, match="str or a BaseLlm"):
        LlmAgent.set_default_live_model(3)  # type: ignore[arg-type]


async def test_the_search_agents_grounding_reaches_the_callers_answer(
    session_service: BaseSessionService,
) -> None:
    sources = types.GroundingMetadata(
        web_search_queries=["oslo weather"],
        grounding_chunks=[
            types.GroundingChunk(web=types.GroundingChunkWeb(uri="https://met.no", title="met"))
        ],
    )
    searcher = LlmAgent(
        name="google_search_agent",
        model=ScriptedModel(
            replies=[
                LlmResponse(
                    content=types.Content(role="model", parts=[types.Part(text="Sunny.")]),
                    grounding_metadata=sources,
                )
            ]
        ),
    )
    call = function_call("google_search_agent", {"request": "oslo weather"})
    root_model = ScriptedModel(replies=[call, "It is sunny in Oslo."])
    agent = LlmAgent(name="root", model=root_model, tools=[lookup, GoogleSearchAgentTool(searcher)])
    runner = await start(agent, session_service)
    events = await send(runner, "weather in oslo?")
    assert events[0].grounding_metadata is None  # the call itself came before the search
    assert events[1].get_function_responses()[0].response == {"result": "Sunny."}
    assert events[-1].grounding_metadata == sources
    session = await stored(runner)
    assert session.events[-1].grounding_metadata == sources  # committed with the answer
    assert GROUNDING_STATE_KEY not in session.state  # invocation-only, never stored
    # The next turn starts without it: a new invocation, no search.
    root_model.replies.append("Still sunny.")
    later = await send(runner, "and now?")
    assert later[-1].grounding_metadata is None


async def test_an_agent_tool_passes_grounding_on_only_when_asked() -> None:
    sources = types.GroundingMetadata(web_search_queries=["q"])

    def searcher() -> LlmAgent:
        reply = LlmResponse(
            content=types.Content(role="model", parts=[types.Part(text="found")]),
            grounding_metadata=sources,
        )
        return LlmAgent(name="finder", model=ScriptedModel(replies=[reply]))

    for tool, expected in (
        (AgentTool(searcher()), None),
        (AgentTool(searcher(), propagate_grounding_metadata=True), sources),
    ):
        model = ScriptedModel(replies=[function_call("finder", {"request": "q"}), "done"])
        runner = await start(
            LlmAgent(name="root", model=model, tools=[tool]), InMemorySessionService()
        )
        events = await send(runner, "find")
        assert events[-1].grounding_metadata == expected
