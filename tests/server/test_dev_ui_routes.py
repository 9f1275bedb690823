"""What google-adk's web UI asks of ``adk-runtime serve`` besides the api_server routes."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from collections.abc import AsyncIterator

import httpx
import pytest

from adk_runtime import __version__
from adk_runtime.agents import LlmAgent
from adk_runtime.errors import ConfigurationError
from adk_runtime.server import create_app
from adk_runtime.server.dev_ui import find_web_bundle
from adk_runtime.sessions import InMemorySessionService
from adk_runtime.workflow import START, Workflow
from adk_runtime.workflow._root import as_agent
from tests.serving import ROOT, cli_env

TOKEN = "s3cret"


def lookup(city: str) -> str:
    """Look a city up."""
    return city


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    helper = LlmAgent(name="helper", description="Helps.")
    agent = LlmAgent(name="root", instruction="Be brief.", tools=[lookup], sub_agents=[helper])
    app = create_app(
        agent=agent,
        session_service=InMemorySessionService(),
        auth_token=TOKEN,
        dev_ui=find_web_bundle(),
        allow_origins=["http://ui.example"],
    )
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        yield http


async def test_ui_files_are_open_and_the_api_keeps_its_token(client: httpx.AsyncClient) -> None:
    page = await client.get("/dev-ui/")
    assert page.status_code == 200
    assert "<app-root" in page.text
    config = await client.get("/dev-ui/assets/config/runtime-config.json")
    assert config.json() == {"backendUrl": "", "telemetry": False}
    root = await client.get("/", headers={"Authorization": f"Bearer {TOKEN}"})
    assert root.headers["location"] == "/dev-ui/"
    for path in ("/version", "/list-apps", "/apps/root/app-info", "/dev/apps/root/graph"):
        assert (await client.get(path)).status_code == 401, path


async def test_version_app_info_graph_traces_and_501(client: httpx.AsyncClient) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    version = (await client.get("/version", headers=auth)).json()
    assert version["version"] == __version__
    info = (await client.get("/apps/root/app-info", headers=auth)).json()
    assert info["rootAgentName"] == "root"
    assert info["agents"]["root"]["instruction"] == "Be brief."
    tools = info["agents"]["root"]["tools"]
    assert tools[0]["functionDeclarations"][0]["name"] == "lookup"
    graph = (await client.get("/dev/apps/root/graph", headers=auth)).json()
    assert graph["dotSrc"].startswith("digraph")
    assert '"root"' in graph["dotSrc"]
    # No spans recorded: well-formed empty answers, never a 404.
    event = await client.get("/dev/apps/root/debug/trace/nope", headers=auth)
    assert (event.status_code, event.json()) == (200, {})
    spans = await client.get("/dev/apps/root/debug/trace/session/nope", headers=auth)
    assert (spans.status_code, spans.json()) == (200, [])
    for path in ("/dev/apps/root/builder/save", "/dev/apps/root/eval-sets", "/dev/apps/root/tests"):
        answer = await client.post(path, headers=auth)
        assert answer.status_code == 501, path
        assert "adk-runtime serve does not provide it" in answer.json()["detail"]


async def test_what_the_ui_asks_on_every_load(client: httpx.AsyncClient) -> None:
    """google-adk 2.13's UI asks these whatever the agent: none may be an error."""
    auth = {"Authorization": f"Bearer {TOKEN}"}
    builder = await client.get("/dev/apps/root/builder?ts=1", headers=auth)
    assert (builder.status_code, builder.text) == (200, "")  # not made by the builder
    for listing in ("eval_sets", "eval_results"):
        answer = await client.get(f"/dev/apps/root/{listing}", headers=auth)
        assert (answer.status_code, answer.json()) == (200, []), listing
    consent = await client.get("/config/telemetry", headers=auth)
    assert (consent.status_code, consent.json()) == (200, {"telemetry": False})
    for theme in ("light", "dark"):  # linked by the UI, absent from google-adk's wheel
        css = await client.get(f"/dev-ui/prism-{theme}.css")
        assert css.status_code == 200
        assert css.headers["content-type"].startswith("text/css")
    assert (await client.get("/dev-ui/prism-other.css")).status_code == 404


async def test_telemetry_consent_stays_off(client: httpx.AsyncClient) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    header = {**auth, "X-ADK-Telemetry-Request": "true"}
    off = await client.post("/config/telemetry", json={"telemetry": False}, headers=header)
    assert (off.status_code, off.json()) == (200, {"telemetry": False})
    on = await client.post("/config/telemetry", json={"telemetry": True}, headers=header)
    assert on.status_code == 400
    assert "sends no usage telemetry" in on.json()["detail"]
    unsigned = await client.post("/config/telemetry", json={"telemetry": False}, headers=auth)
    assert unsigned.status_code == 400  # a form posted by another site cannot add the header
    assert (await client.get("/config/telemetry")).status_code == 401


async def test_build_graph_is_the_agent_tree(client: httpx.AsyncClient) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    info = (await client.get("/dev/apps/root/build_graph", headers=auth)).json()
    assert info["name"] == "root"
    root = info["root_agent"]
    assert (root["name"], root["instruction"]) == ("root", "Be brief.")
    assert root["tools"] == [{"name": "lookup", "type": "tool"}]
    assert [sub["name"] for sub in root["sub_agents"]] == ["helper"]
    missing = await client.get("/dev/apps/nope/build_graph", headers=auth)
    assert missing.status_code == 404


async def test_build_graph_image_is_dot_by_path(client: httpx.AsyncClient) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    light = (await client.get("/dev/apps/root/build_graph_image", headers=auth)).json()
    assert list(light) == [""]
    source = light[""]["dotSrc"]
    assert source.startswith("digraph")
    assert '"root" -> "helper";' in source
    assert '"root" -> "lookup" [style="dashed"];' in source  # tools: dashed
    dark = await client.get("/dev/apps/root/build_graph_image?dark_mode=true", headers=auth)
    assert dark.json()[""]["dotSrc"] != source
    helper = await client.get("/dev/apps/root/build_graph_image?node=helper", headers=auth)
    assert list(helper.json()) == ["helper"]
    unknown = await client.get("/dev/apps/root/build_graph_image?node=nope", headers=auth)
    assert unknown.status_code == 404


def pick(text: str) -> str:
    """Route the text."""
    return text


def shout(text: str) -> str:
    """Shout the text."""
    return text.upper()


async def test_a_workflows_graph_and_each_inner_workflows() -> None:
    inner = Workflow(name="inner", edges=[(START, shout)])
    writer = LlmAgent(name="writer", tools=[shout])
    flow = Workflow(name="flow", edges=[(START, pick, {"a": inner, "b": writer})])
    app = create_app(agent=as_agent(flow), session_service=InMemorySessionService())
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        info = (await http.get("/dev/apps/flow/build_graph")).json()
        images = (await http.get("/dev/apps/flow/build_graph_image")).json()
    root = info["root_agent"]
    assert (root["name"], root["type"]) == ("flow", "workflow")
    nodes = {node["name"]: node["type"] for node in root["graph"]["nodes"]}
    assert nodes == {
        "__START__": "start",
        "pick": "function",
        "inner": "workflow",
        "writer": "agent",
    }
    routes = {(e["to_node"]["name"], e.get("route")) for e in root["graph"]["edges"]}
    assert routes == {("pick", None), ("inner", "a"), ("writer", "b")}
    assert sorted(images) == ["", "inner"]
    assert '"pick" -> "inner" [label="a"];' in images[""]["dotSrc"]
    assert '"__START__" -> "shout";' in images["inner"]["dotSrc"]


async def test_cors_only_for_allowed_origins(client: httpx.AsyncClient) -> None:
    preflight = {
        "Origin": "http://ui.example",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization,content-type",
    }
    allowed = await client.options("/run_sse", headers=preflight)
    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] == "http://ui.example"
    refused = await client.options("/run_sse", headers={**preflight, "Origin": "http://evil"})
    assert "access-control-allow-origin" not in refused.headers
    plain = create_app(agent=LlmAgent(name="root"), session_service=InMemorySessionService())
    transport = httpx.ASGITransport(app=plain)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        answer = await http.get("/list-apps", headers={"Origin": "http://ui.example"})
    assert "access-control-allow-origin" not in answer.headers  # off by default


def test_missing_google_adk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> importlib.metadata.Distribution:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "distribution", missing)
    with pytest.raises(ConfigurationError, match=r"pip install 'adk-runtime\[google-adk\]'"):
        find_web_bundle()


def test_serve_dev_ui_without_google_adk_is_one_line() -> None:
    code = (
        "import importlib.metadata as m\n"
        "def missing(name):\n"
        "    raise m.PackageNotFoundError(name)\n"
        "m.distribution = missing\n"
        "from adk_runtime.cli import main\n"
        "main(['serve', '--agent', 'tests.server.agent:root_agent', '--url', 'memory://',"
        " '--dev-ui'])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.strip() == (
        "Error: --dev-ui serves google-adk's web UI, and google-adk is not installed: "
        "pip install 'adk-runtime[google-adk]'"
    )


def test_run_live_is_refused_with_a_reason() -> None:
    from starlette.testclient import TestClient
    from starlette.websockets import WebSocketDisconnect

    from adk_runtime.server.dev_ui import LIVE_REFUSAL

    app = create_app(
        agent=LlmAgent(name="root"), session_service=InMemorySessionService(), auth_token=TOKEN
    )
    with TestClient(app) as http:
        with (
            pytest.raises(WebSocketDisconnect) as refused,
            http.websocket_connect("/run_live") as ws,
        ):
            ws.receive_text()
        assert refused.value.code == 1008  # no token: nothing but the refusal
        auth = {"Authorization": f"Bearer {TOKEN}"}
        live = http.websocket_connect("/run_live?app_name=root", headers=auth)
        with pytest.raises(WebSocketDisconnect) as closed, live as ws:
            ws.receive_text()
        assert (closed.value.code, closed.value.reason) == (1003, LIVE_REFUSAL)
