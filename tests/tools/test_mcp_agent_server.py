"""An agent served over MCP (``to_mcp_server``) and tools described for MCP (conversion_utils)."""

from __future__ import annotations

import base64
import sys
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

import httpx
import pytest
from google.genai import types
from mcp import types as mcp_types
from mcp.client.client import Client

from adk_runtime.agents import BaseAgent, LlmAgent
from adk_runtime.core.base_tool import BaseTool
from adk_runtime.core.invocation_context import InvocationContext
from adk_runtime.events import Event
from adk_runtime.features._feature_registry import FeatureName, temporary_feature_override
from adk_runtime.runners import Runner
from adk_runtime.runtime.mcp_server import MCP_USER_ID
from adk_runtime.sessions import BaseSessionService, DatabaseSessionService, InMemorySessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import FunctionTool
from adk_runtime.tools.mcp_tool import (
    McpToolset,
    StdioConnectionParams,
    StdioServerParameters,
    adk_to_mcp_tool_type,
    gemini_to_json_schema,
    to_mcp_server,
)
from tests.llm.helpers import send, start, texts
from tests.serving import free_port, running_process
from tests.tools.mcp_agent_server import counted

REPO = Path(__file__).resolve().parents[2]
AGENT = "tests.tools.mcp_agent_server:root_agent"
PNG = b"\x89PNG\r\n\x1a\n fake"


class Painter(BaseAgent):
    """Says what it does while calling a tool, then answers with text, an image and a PDF."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        call = types.Part(function_call=types.FunctionCall(id="p1", name="brush", args={}))
        working = types.Content(role="model", parts=[types.Part(text="sketching…"), call])
        yield Event(invocation_id=ctx.invocation_id, author=self.name, content=working)
        parts = [
            types.Part(text="Here it is."),
            types.Part(inline_data=types.Blob(mime_type="image/png", data=PNG)),
            types.Part(inline_data=types.Blob(mime_type="application/pdf", data=b"%PDF")),
        ]
        yield Event(
            invocation_id=ctx.invocation_id,
            author=self.name,
            content=types.Content(role="model", parts=parts),
        )


def text_of(result: mcp_types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, mcp_types.TextContent)
    return block.text


def conversation_of(result: mcp_types.CallToolResult) -> str:
    assert result.meta is not None
    session_id: str = result.meta["session_id"]
    return session_id


async def test_a_conversation_is_continued_by_its_id_in_the_store(
    session_service: BaseSessionService,
) -> None:
    agent = LlmAgent(
        name="counter", description="Counts messages.", model=ScriptedModel(handler=counted)
    )
    runner = Runner(app_name="counter", agent=agent, session_service=session_service)
    server = to_mcp_server(agent, runner=runner, instructions="Ask it anything.")
    async with Client(server) as client:  # the stateless protocol: nothing ties calls together
        tools = (await client.list_tools()).tools
        assert [(t.name, t.description) for t in tools] == [("counter", "Counts messages.")]
        assert tools[0].input_schema["required"] == ["request"]
        assert set(tools[0].input_schema["properties"]) == {"request", "session_id"}
        first = await client.call_tool("counter", {"request": "hi"})
        alone = await client.call_tool("counter", {"request": "alone"})
        again = {"request": "again", "session_id": conversation_of(first)}
        second = await client.call_tool("counter", again)
        unknown = await client.call_tool("counter", {"request": "x", "session_id": "nope"})
        malformed = await client.call_tool("counter", {"request": "x", "session_id": "\x00" * 9})
    assert not first.is_error
    assert text_of(first) == "message 1: hi"
    assert text_of(alone) == "message 1: alone"
    assert conversation_of(alone) != conversation_of(first)
    assert text_of(second) == "message 2: again"  # the model saw both messages
    assert conversation_of(second) == conversation_of(first)
    assert unknown.is_error
    assert "No conversation 'nope'" in text_of(unknown)
    assert malformed.is_error
    assert "session_id" in text_of(malformed)
    stored = await session_service.get_session(
        app_name="counter", user_id=MCP_USER_ID, session_id=conversation_of(first)
    )
    assert stored is not None
    assert len(stored.events) == 4  # two turns, committed to the store


async def test_on_a_stateful_connection_successive_calls_are_one_conversation() -> None:
    agent = LlmAgent(name="counter", model=ScriptedModel(handler=counted))
    server = to_mcp_server(agent)
    async with Client(server, mode="legacy") as client:
        first = await client.call_tool("counter", {"request": "hi"})
        second = await client.call_tool("counter", {"request": "again"})
    assert text_of(second) == "message 2: again"
    assert conversation_of(second) == conversation_of(first)
    async with Client(server, mode="legacy") as other:  # another connection: another one
        assert text_of(await other.call_tool("counter", {"request": "new"})) == "message 1: new"


async def test_the_reply_carries_media_and_progress_goes_out_as_notifications() -> None:
    server = to_mcp_server(Painter(name="painter"))
    progress: list[str | None] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(message)

    async with Client(server) as client:
        result = await client.call_tool(
            "painter", {"request": "draw"}, progress_callback=on_progress
        )
    text, image, pdf = result.content
    assert isinstance(text, mcp_types.TextContent)
    assert text.text == "Here it is."
    assert isinstance(image, mcp_types.ImageContent)
    assert (image.mime_type, base64.b64decode(image.data)) == ("image/png", PNG)
    assert isinstance(pdf, mcp_types.EmbeddedResource)
    assert isinstance(pdf.resource, mcp_types.BlobResourceContents)
    assert pdf.resource.mime_type == "application/pdf"
    assert progress == ["sketching…"]
    assert server.name == "painter"


async def test_adk_runtime_mcp_over_stdio_driven_by_our_own_mcp_toolset(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'served.db'}"
    params = StdioConnectionParams(
        server_params=StdioServerParameters(
            command=sys.executable,
            args=["-m", "adk_runtime.cli", "mcp", "--agent", AGENT, "--session-url", url],
            cwd=str(REPO),
        ),
        timeout=60,
    )
    toolset = McpToolset(connection_params=params)
    replies: list[Any] = [
        function_call("counter", {"request": "one"}),
        function_call("counter", {"request": "two"}),
        "done",
    ]
    caller = LlmAgent(name="caller", model=ScriptedModel(replies=replies), tools=[toolset])
    runner = await start(caller, InMemorySessionService())
    try:
        events = await send(runner, "ask the counter twice")
    finally:
        await runner.close()
    answers = [r.response for e in events for r in e.get_function_responses()]
    assert [a["content"][0]["text"] for a in answers if a] == ["message 1: one", "message 2: two"]
    assert texts(events) == ["done"]
    async with DatabaseSessionService(url) as store:  # the served agent's turns are durable
        listed = await store.list_sessions(app_name="counter", user_id=MCP_USER_ID)
        (only,) = listed.sessions
        session = await store.get_session(
            app_name="counter", user_id=MCP_USER_ID, session_id=only.id
        )
        assert session is not None
        assert len(session.events) == 4


def test_the_feature_switch_turns_it_off() -> None:
    with (
        temporary_feature_override(FeatureName.MCP_AGENT_SERVER, False),
        pytest.raises(RuntimeError, match="MCP_AGENT_SERVER"),
    ):
        to_mcp_server(Painter(name="painter"))


def forecast(city: str, days: int = 1) -> dict[str, Any]:
    """Forecast the weather of a city."""
    return {"city": city, "days": days}


class Bare(BaseTool):
    def __init__(self, declaration: types.FunctionDeclaration | None) -> None:
        super().__init__(name="bare", description="A bare tool.")
        self._declaration = declaration

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        return self._declaration


def test_a_tool_is_described_for_mcp_with_its_input_schema() -> None:
    described = adk_to_mcp_tool_type(FunctionTool(forecast))
    assert (described.name, described.description) == (
        "forecast",
        "Forecast the weather of a city.",
    )
    assert described.input_schema["properties"]["city"]["type"] == "string"
    assert described.input_schema["required"] == ["city"]
    assert adk_to_mcp_tool_type(Bare(None)).input_schema == {}
    schema = types.Schema(
        type=types.Type.OBJECT, properties={"q": types.Schema(type=types.Type.STRING)}
    )
    declared = Bare(types.FunctionDeclaration(name="bare", parameters=schema))
    assert adk_to_mcp_tool_type(declared).input_schema == {
        "type": "object",
        "properties": {"q": {"type": "string"}},
    }


def test_a_gemini_schema_becomes_json_schema() -> None:
    schema = types.Schema(
        type=types.Type.OBJECT,
        description="An order.",
        required=["items"],
        min_properties=1,
        properties={
            "items": types.Schema(
                type=types.Type.ARRAY,
                min_items=1,
                items=types.Schema(type=types.Type.STRING, min_length=2, pattern="^[a-z]+$"),
            ),
            "total": types.Schema(type=types.Type.NUMBER, minimum=0, nullable=True),
            "kind": types.Schema(any_of=[types.Schema(type=types.Type.INTEGER, maximum=9)]),
            "min_length_ignored": types.Schema(type=types.Type.INTEGER, min_length=3),
        },
    )
    assert gemini_to_json_schema(schema) == {
        "type": "object",
        "description": "An order.",
        "required": ["items"],
        "minProperties": 1,
        "properties": {
            "items": {
                "type": "array",
                "minItems": 1,
                "items": {"type": "string", "minLength": 2, "pattern": "^[a-z]+$"},
            },
            "total": {"type": "number", "minimum": 0, "nullable": True},
            "kind": {"type": "null", "anyOf": [{"type": "integer", "maximum": 9}]},
            "min_length_ignored": {"type": "integer"},
        },
    }
    with pytest.raises(TypeError, match=r"types\.Schema"):
        gemini_to_json_schema({"type": "object"})  # type: ignore[arg-type]


async def test_adk_runtime_mcp_over_streamable_http(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'served.db'}"
    port = free_port()
    command = [
        sys.executable, "-m", "adk_runtime.cli", "mcp", "--agent", AGENT, "--session-url", url,
        "--transport", "streamable-http", "--port", str(port), "--name", "count",
    ]  # fmt: skip
    with running_process(command, port, "/mcp", ready_statuses=range(200, 500)) as base:
        async with Client(f"{base}/mcp") as client:
            (tool,) = (await client.list_tools()).tools
            first = await client.call_tool(tool.name, {"request": "hi"})
            again = {"request": "again", "session_id": conversation_of(first)}
            second = await client.call_tool(tool.name, again)
        # on loopback, a request naming another host (a web page's, by DNS rebinding) is refused
        async with httpx.AsyncClient(timeout=30) as http:
            rebound = await http.post(
                f"{base}/mcp",
                headers={"Host": "rebound.attacker.example", "Accept": "application/json"},
                json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            )
    assert rebound.status_code == 421
    assert tool.name == "count"
    assert text_of(second) == "message 2: again"
