"""McpToolset against real MCP server processes: stdio subprocesses and streamable HTTP."""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

import pydantic
import pytest
from blockbuster import BlockBuster
from mcp.shared._httpx_utils import create_mcp_http_client as sdk_client_factory
from mcp.types import (
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequestParams,
    ElicitResult,
    TextContent,
)

from adk_runtime.agents import LlmAgent
from adk_runtime.agents.mcp_instruction_provider import McpInstructionProvider
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService
from adk_runtime.sessions.memory import InMemorySessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import BaseTool
from adk_runtime.tools.mcp_tool import (
    MCPToolset,
    McpToolset,
    SseConnectionParams,
    StdioConnectionParams,
    StdioServerParameters,
    StreamableHTTPConnectionParams,
)
from adk_runtime.tools.mcp_tool.mcp_session_manager import create_mcp_http_client
from tests.llm.helpers import send, start, texts

REPO = Path(__file__).resolve().parents[2]
SERVER = ["-m", "tests.tools.mcp_server"]
SERVER_TOOLS = {
    "add", "count_up", "crash", "credentials", "delete_file", "explode", "grounded_search",
    "server_pid", "shout", "summarize", "whoami",
}  # fmt: skip


@pytest.fixture
def errlog(tmp_path: Path) -> Iterator[TextIO]:
    with (tmp_path / "mcp-server.err").open("w") as handle:
        yield handle


def stdio(errlog: TextIO, **kwargs: Any) -> McpToolset:
    params = StdioConnectionParams(
        server_params=StdioServerParameters(
            command=sys.executable, args=[*SERVER, "stdio"], cwd=str(REPO)
        ),
        timeout=60,
    )
    return McpToolset(connection_params=params, errlog=errlog, **kwargs)


def first_text(result: dict[str, Any]) -> str:
    text: str = result["content"][0]["text"]
    return text


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_stdio_tools_are_listed_with_the_servers_declarations(
    errlog: TextIO, blockbuster: BlockBuster
) -> None:
    toolset = stdio(errlog)
    try:
        tools = await toolset.get_tools()
        assert [t.name for t in tools] == sorted(SERVER_TOOLS)
        declaration = tools[0]._get_declaration()
        assert declaration is not None
        assert declaration.description == "Add two integers."
        schema = declaration.parameters_json_schema
        assert isinstance(schema, dict)
        assert schema["required"] == ["a", "b"]
        assert schema["properties"]["a"]["type"] == "integer"
    finally:
        await toolset.close()


async def test_agent_calls_an_mcp_tool_and_runner_close_stops_the_server(
    errlog: TextIO, blockbuster: BlockBuster
) -> None:
    toolset = stdio(errlog)
    model = ScriptedModel(
        replies=[
            function_call("add", {"a": 2, "b": 3}, id="m1"),
            function_call("server_pid", {}, id="m2"),
            "2 + 3 = 5",
        ]
    )
    agent = LlmAgent(name="calc", model=model, tools=[toolset])
    service = InMemorySessionService()
    runner = await start(agent, service)
    events = await send(runner, "add 2 and 3")
    added = events[1].get_function_responses()[0].response
    assert added is not None
    assert added == {
        "content": [{"type": "text", "text": "5"}],
        "structuredContent": {"result": 5},
        "isError": False,
    }
    pid_response = events[3].get_function_responses()[0].response
    assert pid_response is not None
    pid = int(first_text(pid_response))
    assert pid != os.getpid()
    assert texts(events) == ["2 + 3 = 5"]
    declared = model.requests[0].config.tools
    assert declared is not None
    names = {d.name for d in declared[0].function_declarations or []}
    assert names == SERVER_TOOLS
    assert alive(pid)
    await runner.close()
    assert not alive(pid)  # stopped and reaped
    await runner.close()  # twice is fine


async def test_a_server_that_died_is_restarted_on_the_next_call(errlog: TextIO) -> None:
    toolset = stdio(errlog, tool_filter=["server_pid", "crash"])
    model = ScriptedModel(
        replies=[
            function_call("server_pid", {}),
            function_call("crash", {}),
            function_call("server_pid", {}),
            "done",
        ]
    )
    agent = LlmAgent(name="ops", model=model, tools=[toolset])
    runner = await start(agent, InMemorySessionService())
    events = await send(runner, "go")
    first = int(first_text(events[1].get_function_responses()[0].response or {}))
    crashed = events[3].get_function_responses()[0].response
    assert crashed == {"error": "MCPError: Connection closed"}  # it crashed again on the retry
    second = int(first_text(events[5].get_function_responses()[0].response or {}))
    assert second != first
    assert not alive(first)
    await runner.close()
    assert not alive(second)


async def test_filter_prefix_and_tool_errors(errlog: TextIO) -> None:
    toolset = stdio(errlog, tool_filter=["shout", "explode"], tool_name_prefix="srv")
    model = ScriptedModel(
        replies=[
            [
                function_call("srv_shout", {"text": "hi"}, id="s1"),
                function_call("srv_explode", {"reason": "boom"}, id="s2"),
            ],
            "done",
        ]
    )
    agent = LlmAgent(name="a", model=model, tools=[toolset])
    async with Runner(
        app_name="app", agent=agent, session_service=InMemorySessionService()
    ) as runner:
        await runner.session_service.create_session(app_name="app", user_id="u1", session_id="s1")
        events = await send(runner, "go")
    declared = model.requests[0].config.tools
    assert declared is not None
    assert sorted(d.name or "" for d in declared[0].function_declarations or []) == [
        "srv_explode",
        "srv_shout",
    ]
    responses = {r.name: r.response for r in events[1].get_function_responses()}
    assert first_text(responses["srv_shout"] or {}) == "HI"
    assert responses["srv_explode"] is not None
    assert responses["srv_explode"]["isError"] is True
    assert "exploded: boom" in first_text(responses["srv_explode"])


async def test_progress_notifications_reach_a_callback_or_a_factorys(
    errlog: TextIO, session_service: BaseSessionService
) -> None:
    heard: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        heard.append((progress, total, message))

    made_for: list[str] = []

    def factory(tool_name: str, *, callback_context: Any = None, **_: Any) -> Any:
        made_for.append(tool_name)

        async def note(progress: float, total: float | None, message: str | None) -> None:
            callback_context.state["last_progress"] = f"{progress:g}/{total:g}"

        return note

    for number, callback in enumerate((on_progress, factory)):
        model = ScriptedModel(replies=[function_call("count_up", {"n": 3}), "counted"])
        toolset = stdio(errlog, tool_filter=["count_up"], progress_callback=callback)
        agent = LlmAgent(name="a", model=model, tools=[toolset])
        runner = await start(agent, session_service, session_id=f"s-{number}")
        try:
            events = await send(runner, "count", session_id=f"s-{number}")
        finally:
            await runner.close()
        assert texts(events) == ["counted"]
    assert heard == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]
    assert made_for == ["count_up"]
    stored = await session_service.get_session(app_name="app", user_id="u1", session_id="s-1")
    assert stored is not None
    assert stored.state["last_progress"] == "3/3"  # written by the callback, committed


async def test_a_server_that_cannot_start_leaves_the_agent_without_its_tools(
    errlog: TextIO, caplog: pytest.LogCaptureFixture
) -> None:
    params = StdioConnectionParams(
        server_params=StdioServerParameters(command=str(REPO / "no-such-server")), timeout=5
    )
    toolset = McpToolset(connection_params=params, errlog=errlog)
    with pytest.raises(ConnectionError, match="no-such-server"):
        await toolset.get_tools()
    model = ScriptedModel(replies=["no tools today"])
    agent = LlmAgent(name="a", model=model, tools=[toolset])
    runner = await start(agent, InMemorySessionService())
    with caplog.at_level(logging.ERROR, logger="adk_runtime.agents._toolsets"):
        events = await send(runner, "hi")
    assert texts(events) == ["no tools today"]
    assert model.requests[0].config.tools is None
    assert "McpToolset" in caplog.text
    assert "ConnectionError" in caplog.text
    await runner.close()


async def test_mcp_tool_with_require_confirmation(errlog: TextIO) -> None:
    toolset = stdio(errlog, tool_filter=["shout"], require_confirmation=True)
    model = ScriptedModel(replies=[function_call("shout", {"text": "ok"}, id="c1"), "shouted"])
    agent = LlmAgent(name="a", model=model, tools=[toolset])
    runner = await start(agent, InMemorySessionService())
    paused = await send(runner, "shout ok")
    request = paused[1].get_function_calls()[0]  # call, request, placeholder response
    assert request.name == "adk_request_confirmation"
    from google.genai import types

    answer = types.Content(
        role="user",
        parts=[
            types.Part(
                function_response=types.FunctionResponse(
                    id=request.id, name=request.name, response={"confirmed": True}
                )
            )
        ],
    )
    resumed = await send(runner, answer)
    response = resumed[0].get_function_responses()[0].response
    assert response is not None
    assert first_text(response) == "OK"
    assert texts(resumed) == ["shouted"]
    await runner.close()


async def test_resources_and_instruction_provider(errlog: TextIO) -> None:
    toolset = stdio(errlog, tool_filter=["add"], use_mcp_resources=True)
    assert await toolset.list_resources() == ["menu"]
    info = await toolset.get_resource_info("menu")
    assert info["uri"] == "memo://menu"
    provider = McpInstructionProvider(toolset.connection_params, "persona", errlog=errlog)
    model = ScriptedModel(
        replies=[function_call("load_mcp_resource", {"resource_names": ["menu"]}), "pie it is"]
    )
    agent = LlmAgent(name="chef", model=model, tools=[toolset], instruction=provider)
    runner = await start(agent, InMemorySessionService(), state={"style": "cheerful"})
    events = await send(runner, "what is on the menu?")
    assert texts(events) == ["pie it is"]
    first = model.requests[0]
    assert "You answer in a cheerful style." in str(first.config.system_instruction)
    assert '["menu"]' in str(first.config.system_instruction)
    shown = model.requests[1].contents[-1]
    assert [p.text for p in shown.parts or []] == ["Resource menu is:", "soup, bread, pie"]
    await runner.close()  # closes the toolset (and the provider's session)
    await provider.close()  # closing twice is harmless


def test_sync_runner_runs_open_and_close_their_own_sessions(
    errlog: TextIO, caplog: pytest.LogCaptureFixture
) -> None:
    # Runner.run drives each turn on a loop of its own: the MCP session and the server
    # process live for that turn, and the next turn opens new ones.
    from google.genai import types

    toolset = stdio(errlog, tool_filter=["server_pid"])
    model = ScriptedModel(
        replies=[function_call("server_pid", {}), "one", function_call("server_pid", {}), "two"]
    )
    runner = Runner(
        app_name="app", agent=LlmAgent(name="a", model=model, tools=[toolset]),
        session_service=InMemorySessionService(), auto_create_session=True,
    )  # fmt: skip
    message = types.Content(role="user", parts=[types.Part(text="pid?")])
    pids = []
    with caplog.at_level(logging.INFO, logger="adk_runtime.tools.mcp_tool"):
        for _ in range(2):
            events = list(runner.run(user_id="u", session_id="s", new_message=message))
            pids.append(int(first_text(events[1].get_function_responses()[0].response or {})))
            assert not alive(pids[-1])  # ended with its turn's loop
    assert pids[0] != pids[1]
    assert "another event loop" not in caplog.text


async def test_mcptoolset_alias_warns(errlog: TextIO) -> None:
    with pytest.warns(DeprecationWarning, match="McpToolset"):
        toolset = MCPToolset(connection_params=stdio(errlog).connection_params)
    assert isinstance(toolset, McpToolset)


def test_import_without_the_mcp_sdk_names_the_extra() -> None:
    code = (
        "import sys; sys.modules['mcp'] = None\n"
        "from adk_runtime.errors import ConfigurationError\n"
        "try:\n"
        "    from adk_runtime.tools import McpToolset\n"
        "except ConfigurationError as exc:\n"
        "    print('ERR', exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert "ERR" in done.stdout
    assert "pip install 'adk-runtime[mcp]'" in done.stdout


# --- streamable HTTP on a loopback port ---------------------------------------------------


def _spare_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _serve(transport: str, log: Path) -> Iterator[int]:
    """Run the test server with ``transport`` on a spare loopback port; stop it after."""
    port = _spare_port()
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, *SERVER, transport, str(port)], cwd=REPO, stdout=out, stderr=out
        )
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if process.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError(log.read_text()) from None
                    time.sleep(0.1)
            yield port
        finally:
            process.terminate()
            process.wait(timeout=30)


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("mcp-http") / "server.log"
    for port in _serve("http", log):
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.fixture(scope="module")
def sse_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("mcp-sse") / "server.log"
    for port in _serve("sse", log):
        yield f"http://127.0.0.1:{port}/sse"


async def test_streamable_http_tools_with_headers(
    http_server: str, blockbuster: BlockBuster
) -> None:
    def headers(context: Any) -> dict[str, str]:
        return {"x-user": context.state.get("who", "")}

    toolset = McpToolset(
        connection_params=StreamableHTTPConnectionParams(url=http_server, timeout=30),
        tool_filter=lambda tool, ctx=None: tool.name in ("add", "whoami"),
        header_provider=headers,
    )
    model = ScriptedModel(
        replies=[
            [function_call("add", {"a": 40, "b": 2}), function_call("whoami", {})],
            "42, ann",
        ]
    )
    agent = LlmAgent(name="a", model=model, tools=[toolset])
    runner = await start(agent, InMemorySessionService(), state={"who": "ann"})
    events = await send(runner, "go")
    results = {r.name: first_text(r.response or {}) for r in events[1].get_function_responses()}
    assert results == {"add": "42", "whoami": "ann"}
    declared: list[BaseTool] = await toolset.get_tools()
    assert sorted(t.name for t in declared) == ["add", "whoami"]
    await runner.close()


async def test_sse_transport(sse_server: str, blockbuster: BlockBuster) -> None:
    toolset = McpToolset(
        connection_params=SseConnectionParams(url=sse_server, headers={"x-user": "bo"}),
        tool_filter=["shout", "whoami"],
    )
    model = ScriptedModel(
        replies=[[function_call("shout", {"text": "sse"}), function_call("whoami", {})], "ok"]
    )
    runner = await start(LlmAgent(name="a", model=model, tools=[toolset]), InMemorySessionService())
    try:
        events = await send(runner, "go")
        results = {r.name: first_text(r.response or {}) for r in events[1].get_function_responses()}
        assert results == {"shout": "SSE", "whoami": "bo"}
    finally:
        await runner.close()


async def test_http_server_unreachable_is_a_connection_error() -> None:
    toolset = McpToolset(
        connection_params=StreamableHTTPConnectionParams(
            url=f"http://user:secret@127.0.0.1:{_spare_port()}/mcp?token=abc", timeout=5
        )
    )
    with pytest.raises(ConnectionError) as caught:
        await toolset.get_tools()
    message = str(caught.value)
    assert "127.0.0.1" in message
    assert "secret" not in message
    assert "token=abc" not in message
    await toolset.close()


async def test_a_custom_http_client_factory_makes_the_connections_client(
    http_server: str, sse_server: str
) -> None:
    made: list[str] = []

    def factory(
        headers: dict[str, str] | None = None, timeout: Any = None, auth: Any = None
    ) -> Any:
        made.append("client")
        merged = {**(headers or {}), "x-user": "via-factory"}
        return create_mcp_http_client(headers=merged, timeout=timeout, auth=auth)

    for params in (
        StreamableHTTPConnectionParams(url=http_server, timeout=30, httpx_client_factory=factory),
        SseConnectionParams(url=sse_server, timeout=30, httpx_client_factory=factory),
    ):
        toolset = McpToolset(connection_params=params, tool_filter=["whoami"])
        model = ScriptedModel(replies=[function_call("whoami", {}), "done"])
        runner = await start(
            LlmAgent(name="a", model=model, tools=[toolset]), InMemorySessionService()
        )
        try:
            events = await send(runner, "who?")
        finally:
            await runner.close()
        (response,) = events[1].get_function_responses()
        assert first_text(response.response or {}) == "via-factory"
    assert len(made) == 2
    with pytest.raises(pydantic.ValidationError):
        StreamableHTTPConnectionParams(url=http_server, httpx_client_factory="not callable")  # type: ignore[arg-type]


async def test_the_server_samples_the_clients_model_and_elicits_the_users_answer(
    errlog: TextIO, blockbuster: BlockBuster
) -> None:
    sampled: list[str] = []

    async def sample(context: Any, params: CreateMessageRequestParams) -> CreateMessageResult:
        content = params.messages[0].content
        sampled.append(content.text if isinstance(content, TextContent) else "")
        return CreateMessageResult(
            role="assistant", content=TextContent(type="text", text="short"), model="m"
        )

    asked: list[str] = []

    async def elicit(context: Any, params: ElicitRequestParams) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action="accept", content={"approve": "b.txt" in params.message})

    toolset = stdio(errlog, sampling_callback=sample, elicitation_callback=elicit)
    model = ScriptedModel(
        replies=[
            [
                function_call("summarize", {"text": "a long text"}),
                function_call("delete_file", {"path": "a.txt"}),
                function_call("delete_file", {"path": "b.txt"}),
            ],
            "done",
        ]
    )
    runner = await start(LlmAgent(name="a", model=model, tools=[toolset]), InMemorySessionService())
    try:
        events = await send(runner, "go")
    finally:
        await runner.close()
    answers = [first_text(r.response) for e in events for r in e.get_function_responses()]
    assert answers == ["summary: short", "kept a.txt (accept)", "deleted b.txt"]
    assert sampled == ["a long text"]
    assert asked == ["Delete a.txt?", "Delete b.txt?"]


@pytest.mark.parametrize("propagate", [True, False])
async def test_grounding_metadata_of_a_result_grounds_the_next_answer(
    errlog: TextIO, blockbuster: BlockBuster, propagate: bool
) -> None:
    toolset = stdio(errlog, propagate_grounding_metadata=propagate)
    model = ScriptedModel(
        replies=[function_call("grounded_search", {"query": "tides"}), "Tides follow the moon."]
    )
    runner = await start(LlmAgent(name="a", model=model, tools=[toolset]), InMemorySessionService())
    try:
        events = await send(runner, "why tides?")
    finally:
        await runner.close()
    answer = events[-1]
    assert texts([answer]) == ["Tides follow the moon."]
    if not propagate:
        assert answer.grounding_metadata is None
        return
    grounding = answer.grounding_metadata
    assert grounding is not None
    assert grounding.web_search_queries == ["tides"]
    assert grounding.grounding_chunks is not None
    chunk = grounding.grounding_chunks[0].web
    assert chunk is not None
    assert (chunk.uri, chunk.title) == ("https://example.org/a", "tides")


@pytest.mark.parametrize("params", [None, {"url": "http://127.0.0.1:1/mcp"}, "stdio"])
def test_a_toolset_without_a_server_is_refused_at_once(params: Any) -> None:
    from adk_runtime.tools.mcp_tool import McpConfigurationError

    for make in (
        lambda: McpToolset(connection_params=params),
        lambda: McpInstructionProvider(params, "persona"),
    ):
        with pytest.raises(McpConfigurationError) as refused:
            make()
        assert isinstance(refused.value, ValueError)
        assert "StdioConnectionParams" in str(refused.value)


@pytest.mark.parametrize(
    "url", ["", "127.0.0.1:8000/mcp", "ftp://user:s3cret@host/mcp", "file:///tmp/mcp", "http://"]
)
@pytest.mark.parametrize("kind", [StreamableHTTPConnectionParams, SseConnectionParams])
def test_a_url_that_is_not_http_is_refused_without_echoing_it(url: str, kind: type[Any]) -> None:
    with pytest.raises(pydantic.ValidationError) as refused:
        kind(url=url)
    assert "http:// or https://" in str(refused.value)
    assert "s3cret" not in str(refused.value)


@pytest.mark.parametrize("field", ["timeout", "sse_read_timeout"])
def test_a_timeout_must_be_positive(field: str) -> None:
    with pytest.raises(pydantic.ValidationError):
        StreamableHTTPConnectionParams(url="http://127.0.0.1:1/mcp", **{field: 0})
    with pytest.raises(pydantic.ValidationError):
        StdioConnectionParams(
            server_params=StdioServerParameters(command=sys.executable), timeout=-1
        )


def _yaml_agent(tmp_path: Path, args: str) -> Any:
    from adk_runtime.agents import config_agent_utils

    path = tmp_path / "agent.yaml"
    path.write_text(
        "name: files\nmodel: gemini-2.5-flash\ninstruction: Use the tools.\n"
        f"tools:\n  - name: McpToolset\n    args:\n{args}",
        encoding="utf-8",
    )
    return config_agent_utils.from_config(str(path))


async def test_an_agent_config_names_an_http_mcp_server(http_server: str, tmp_path: Path) -> None:
    agent = _yaml_agent(
        tmp_path,
        f"      streamable_http_connection_params:\n        url: {http_server}\n"
        "        timeout: 30\n      tool_filter: [add, shout]\n      tool_name_prefix: srv\n",
    )
    [toolset] = agent.tools
    assert isinstance(toolset, McpToolset)
    try:
        tools = await toolset.get_tools_with_prefix()
        assert sorted(tool.name for tool in tools) == ["srv_add", "srv_shout"]
    finally:
        await toolset.close()


async def test_an_agent_config_starts_a_stdio_server_only_when_allowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from adk_runtime.errors import AgentConfigError

    args = (
        f"      stdio_server_params:\n        command: {sys.executable}\n"
        f"        args: [-m, tests.tools.mcp_server, stdio]\n        cwd: {REPO}\n"
    )
    monkeypatch.delenv("ADK_ALLOW_CONFIG_STDIO_MCP_SERVERS", raising=False)
    with pytest.raises(AgentConfigError, match="ADK_ALLOW_CONFIG_STDIO_MCP_SERVERS=1"):
        _yaml_agent(tmp_path, args)

    monkeypatch.setenv("ADK_ALLOW_CONFIG_STDIO_MCP_SERVERS", "1")
    [toolset] = _yaml_agent(tmp_path, args + "      tool_filter: [add]\n").tools
    try:
        assert [tool.name for tool in await toolset.get_tools()] == ["add"]
    finally:
        await toolset.close()


@pytest.mark.parametrize(
    ("args", "refusal"),
    [
        ("      tool_filter: [add]\n", "exactly one of"),
        (
            "      sse_connection_params: {url: 'http://127.0.0.1:1/sse'}\n"
            "      streamable_http_connection_params: {url: 'http://127.0.0.1:1/mcp'}\n",
            "got sse_connection_params, streamable_http_connection_params",
        ),
        ("      sse_connection_params: {url: 'ftp://u:s3cret@h/sse'}\n", "http:// or https://"),
        ("      sse_connection_params: {url: 'http://h/sse'}\n      colour: red\n", "colour"),
    ],
    ids=["no-server", "two-servers", "bad-url", "unknown-key"],
)
def test_a_bad_mcp_entry_is_a_config_error(tmp_path: Path, args: str, refusal: str) -> None:
    from adk_runtime.errors import AgentConfigError

    with pytest.raises(AgentConfigError, match=refusal) as refused:
        _yaml_agent(tmp_path, args)
    assert "s3cret" not in str(refused.value)


async def test_the_default_client_factory_makes_the_clients_the_sdks_own_would() -> None:
    # ours is the default (the SDK keeps its factory in a private module); this pins the two
    # together, so an SDK release changing its defaults shows up here
    for kwargs in ({}, {"headers": {"X-Team": "core"}}):
        ours, theirs = create_mcp_http_client(**kwargs), sdk_client_factory(**kwargs)
        async with ours, theirs:
            assert ours.timeout == theirs.timeout
            assert ours.timeout.read == 300.0
            assert ours.timeout.connect == 30.0
            assert ours.follow_redirects is theirs.follow_redirects is False
            assert dict(ours.headers) == dict(theirs.headers)
    assert StreamableHTTPConnectionParams(url="http://127.0.0.1:1/mcp").httpx_client_factory is (
        create_mcp_http_client
    )
