"""Retrieval tools: a LlamaIndex retriever, and a directory of files, as tools of an agent."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from llama_index.core import MockEmbedding
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from adk_runtime.agents import LlmAgent
from adk_runtime.errors import ConfigurationError
from adk_runtime.features import FeatureName
from adk_runtime.features._feature_registry import temporary_feature_override
from adk_runtime.sessions import BaseSessionService, InMemorySessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools.retrieval import BaseRetrievalTool, FilesRetrieval, LlamaIndexRetrieval
from tests.llm.fake_gemini import serving, word_vector
from tests.llm.helpers import send, start, stored

DOCUMENTS = {
    "france.txt": "The capital of France is Paris, on the river Seine.",
    "fruit.md": "# Fruit\n\nBananas are yellow and grow in bunches.",
    "space.txt": "Jupiter is the largest planet of the solar system.",
}


class WordEmbedding(BaseEmbedding):
    """A deterministic embedding (the fake Gemini's bag of words), computed locally."""

    def _get_query_embedding(self, query: str) -> list[float]:
        return word_vector(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return word_vector(text)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return word_vector(query)


@pytest.fixture
def documents(tmp_path: Path) -> Path:
    # A folder of its own: the SQLite store of the test lives in tmp_path too, and once it
    # exists the index would read it as a document (its event text, NULs and all).
    folder = tmp_path / "documents"
    folder.mkdir()
    for name, text in DOCUMENTS.items():
        (folder / name).write_text(text)
    return folder


def answers(events: list[Any]) -> list[Any]:
    return [r.response for e in events for r in e.get_function_responses()]


async def files_tool(directory: Path, embedding: BaseEmbedding | None) -> FilesRetrieval:
    # building the index reads and embeds the files: start-up work, kept off the loop here
    return await asyncio.to_thread(
        FilesRetrieval,
        name="search_docs",
        description="Search the company documents.",
        input_dir=str(directory),
        embedding_model=embedding,
    )


@pytest.mark.parametrize("json_schema", [True, False])
def test_the_model_sees_one_required_query_string(json_schema: bool) -> None:
    tool = LlamaIndexRetrieval(name="lookup", description="Look it up.", retriever=object())
    with temporary_feature_override(FeatureName.JSON_SCHEMA_FOR_FUNC_DECL, json_schema):
        declaration = tool._get_declaration()
    assert declaration is not None
    assert (declaration.name, declaration.description) == ("lookup", "Look it up.")
    if json_schema:
        schema = declaration.parameters_json_schema
        assert declaration.parameters is None
        assert schema["required"] == ["query"]
        assert schema["properties"]["query"]["type"] == "string"
    else:
        parameters = declaration.parameters
        assert declaration.parameters_json_schema is None
        assert parameters is not None
        assert parameters.properties is not None
        assert parameters.required == ["query"]
        assert list(parameters.properties) == ["query"]
    assert isinstance(tool, BaseRetrievalTool)


async def test_an_agent_answers_from_files_and_the_answer_is_stored(
    session_service: BaseSessionService, documents: Path
) -> None:
    tool = await files_tool(documents, WordEmbedding())
    assert tool.input_dir == str(documents)
    model = ScriptedModel(
        replies=[
            function_call("search_docs", {"query": "What is the capital of France?"}),
            function_call("search_docs", {"query": "largest planet"}),
            "Paris; Jupiter.",
        ]
    )
    runner = await start(LlmAgent(name="a", model=model, tools=[tool]), session_service)
    events = await send(runner, "Two questions")
    expected = [DOCUMENTS["france.txt"], DOCUMENTS["space.txt"]]
    assert answers(events) == [{"result": text} for text in expected]
    session = await stored(runner)
    assert answers(session.events) == [{"result": text} for text in expected]
    assert session.events[-1].content is not None
    assert session.events[-1].content.parts[0].text == "Paris; Jupiter."


async def test_files_are_embedded_by_gemini_by_default(
    monkeypatch: pytest.MonkeyPatch, documents: Path
) -> None:
    async with serving(monkeypatch) as fake:
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", fake.base_url)
        tool = await files_tool(documents, None)
        model = ScriptedModel(
            replies=[function_call("search_docs", {"query": "capital of France"}), "ok"]
        )
        runner = await start(
            LlmAgent(name="a", model=model, tools=[tool]), InMemorySessionService()
        )
        events = await send(runner, "Where is Paris?")
    assert answers(events) == [{"result": DOCUMENTS["france.txt"]}]
    embedded = [path for path, _ in fake.requests if "Embed" in path]
    # one request per file while indexing (batches of 1), then one for the query
    assert len(embedded) == len(DOCUMENTS) + 1
    assert all("/models/gemini-embedding-2-preview:" in path for path in embedded)


class SyncOnly(BaseRetriever):
    """A retriever with synchronous retrieval only; it records the threads it ran on."""

    def __init__(self, nodes: list[NodeWithScore]) -> None:
        super().__init__()
        self.nodes = nodes
        self.threads: list[int] = []
        self.queries: list[str] = []

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        self.threads.append(threading.get_ident())
        self.queries.append(query_bundle.query_str)
        return self.nodes


async def test_a_synchronous_retriever_runs_off_the_event_loop() -> None:
    found = SyncOnly([NodeWithScore(node=TextNode(text="first"), score=0.9)])
    empty = SyncOnly([])
    tools = [
        LlamaIndexRetrieval(name="found", description="d", retriever=found),
        LlamaIndexRetrieval(name="empty", description="d", retriever=empty),
    ]
    model = ScriptedModel(
        replies=[
            [function_call("found", {"query": "a"}), function_call("empty", {"query": "b"})],
            "done",
        ]
    )
    runner = await start(LlmAgent(name="a", model=model, tools=tools), InMemorySessionService())
    events = await send(runner, "go")
    (first, nothing) = answers(events)
    assert first == {"result": "first"}
    assert "Nothing matched" in nothing["result"]
    assert "'b'" in nothing["result"]
    loop_thread = threading.get_ident()
    assert found.threads
    assert empty.threads
    assert loop_thread not in found.threads + empty.threads
    assert (found.queries, empty.queries) == (["a"], ["b"])


async def test_a_call_without_a_query_is_answered_with_an_error_and_retrieves_nothing() -> None:
    retriever = SyncOnly([NodeWithScore(node=TextNode(text="x"), score=1.0)])
    tool = LlamaIndexRetrieval(name="lookup", description="d", retriever=retriever)
    model = ScriptedModel(
        replies=[[function_call("lookup", {}), function_call("lookup", {"query": "  "})], "ok"]
    )
    runner = await start(LlmAgent(name="a", model=model, tools=[tool]), InMemorySessionService())
    responses = answers(await send(runner, "go"))
    assert len(responses) == 2
    assert all("query" in response["error"] for response in responses)
    assert retriever.queries == []


def test_a_directory_that_is_missing_or_empty_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="not a directory"):
        FilesRetrieval(
            name="n", description="d", input_dir=str(tmp_path / "nope"), embedding_model=None
        )
    with pytest.raises(ConfigurationError, match="No files found"):
        FilesRetrieval(
            name="n",
            description="d",
            input_dir=str(tmp_path),
            embedding_model=MockEmbedding(embed_dim=8),
        )
