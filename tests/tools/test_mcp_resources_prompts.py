"""load_mcp_resource and McpInstructionProvider against a real MCP server process (stdio)."""

from __future__ import annotations

import logging
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

import pytest
from mcp.shared.exceptions import MCPError

from adk_runtime.agents import LlmAgent
from adk_runtime.agents.mcp_instruction_provider import McpInstructionProvider
from adk_runtime.sessions import BaseSessionService
from adk_runtime.sessions.memory import InMemorySessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools.mcp_tool import McpToolset, StdioConnectionParams, StdioServerParameters
from tests.llm.helpers import APP, USER, send, start, texts
from tests.processes import wait_gone
from tests.tools.mcp_resource_server import LOGO

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def errlog(tmp_path: Path) -> Iterator[TextIO]:
    with (tmp_path / "mcp-server.err").open("w") as handle:
        yield handle


def params() -> StdioConnectionParams:
    return StdioConnectionParams(
        server_params=StdioServerParameters(
            command=sys.executable, args=["-m", "tests.tools.mcp_resource_server"], cwd=str(REPO)
        ),
        timeout=60,
    )


def resource_agent(model: ScriptedModel, errlog: TextIO) -> tuple[LlmAgent, McpToolset]:
    toolset = McpToolset(connection_params=params(), errlog=errlog, use_mcp_resources=True)
    return LlmAgent(name="clerk", model=model, tools=[toolset]), toolset


async def test_resources_reach_the_next_request_only(
    session_service: BaseSessionService, errlog: TextIO, caplog: pytest.LogCaptureFixture
) -> None:
    call = function_call("load_mcp_resource", {"resource_names": ["notes", "logo", "nope"]})
    model = ScriptedModel(replies=[call, "milk, and a logo"])
    agent, _ = resource_agent(model, errlog)
    runner = await start(agent, session_service)
    events = await send(runner, "what do I need?")
    assert texts(events) == ["milk, and a logo"]
    first, second = model.requests
    assert '["notes", "logo"]' in str(first.config.system_instruction)
    shown = [[(p.text, p.inline_data) for p in c.parts or []] for c in second.contents[-2:]]
    assert shown[0] == [("Resource notes is:", None), ("buy milk", None)]
    (label, _), (_, blob) = shown[1]
    assert label == "Resource logo is:"
    assert blob is not None
    assert (blob.mime_type, blob.data) == ("image/png", LOGO)
    # the unknown name was skipped (logged by name, no contents) and the turn went on
    assert any("'nope'" in r.getMessage() for r in caplog.records)
    # the contents were shown, never stored
    session = await session_service.get_session(app_name=APP, user_id=USER, session_id="s1")
    assert session is not None
    stored = "".join(event.model_dump_json() for event in session.events)
    assert "buy milk" not in stored
    assert "temporarily inserted" in stored  # the tool's acknowledgement is
    await runner.close()


async def test_the_prompt_follows_the_state_and_survives_a_server_restart(
    errlog: TextIO, caplog: pytest.LogCaptureFixture
) -> None:
    provider = McpInstructionProvider(params(), "greeting", errlog=errlog)
    model = ScriptedModel(replies=["hello ann", "hello again"])
    agent = LlmAgent(name="host", model=model, instruction=provider)
    runner = await start(
        agent, InMemorySessionService(), state={"name": "ann", "visits": 3, "secret": "x"}
    )
    await send(runner, "hi")
    instruction = str(model.requests[0].config.system_instruction)
    assert instruction.startswith("Greet ann, who came 3 times.")  # `secret` is no argument

    pid_provider = McpInstructionProvider(params(), "server_pid", errlog=errlog)
    context: Any = type("Ctx", (), {"state": {}})()
    first_pid = int(await pid_provider(context))
    os.kill(first_pid, signal.SIGKILL)
    await wait_gone(first_pid)
    with caplog.at_level(logging.INFO):
        second_pid = int(await pid_provider(context))  # reconnected once, to a new server
    assert second_pid != first_pid
    # The dead server is noticed before the call (its output stream ended), or, when the
    # stream has not yet told of its end, by the call that fails: either way, one reconnect.
    reconnects = [r.getMessage() for r in caplog.records if "reconnecting" in r.getMessage()]
    assert len(reconnects) == 1
    await pid_provider.close()
    await runner.close()
    await provider.close()


async def test_an_unknown_prompt_is_an_error(errlog: TextIO) -> None:
    provider = McpInstructionProvider(params(), "no_such_prompt", errlog=errlog)
    context: Any = type("Ctx", (), {"state": {}})()
    with pytest.raises(MCPError, match="Unknown prompt: no_such_prompt"):
        await provider(context)  # the server's answer, raised as it is (no reconnect)
    await provider.close()
