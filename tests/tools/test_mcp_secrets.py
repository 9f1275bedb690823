"""MCP headers carry credentials: they never show in a repr or a validation error."""

from __future__ import annotations

import pytest


def test_headers_stay_out_of_reprs_and_validation_errors() -> None:
    import pydantic

    from adk_runtime.agents import ManagedAgent
    from adk_runtime.tools import RemoteMcpServer
    from adk_runtime.tools.mcp_tool import StreamableHTTPConnectionParams

    secret = {"Authorization": "Bearer s3cr3t"}
    remote = RemoteMcpServer(url="https://mcp.example/api", headers=secret)
    agent = ManagedAgent(name="m", agent_id="agents/m", tools=[remote])
    params = StreamableHTTPConnectionParams(url="https://mcp.example/mcp", headers=secret)
    for shown in (repr(remote), str(remote), repr(agent), repr(params)):
        assert "s3cr3t" not in shown
    assert remote.headers == secret  # kept, only not shown
    with pytest.raises(pydantic.ValidationError) as refused:
        RemoteMcpServer(url="https://mcp.example/api", headers={"Authorization": ["s3cr3t"]})  # type: ignore[dict-item]
    assert "headers.Authorization" in str(refused.value)
    assert "s3cr3t" not in str(refused.value)
