"""An adk_runtime agent served over MCP stdio, for tests/tools/test_mcp_agent_server.py.

``python -m tests.tools.mcp_agent_server SQLITE_URL``: the agent's turns are committed to
that store. The scripted model answers every request with how many user messages it holds.
"""

from __future__ import annotations

import sys

from adk_runtime.agents import LlmAgent
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.runners import Runner
from adk_runtime.sessions import DatabaseSessionService
from adk_runtime.testing import ScriptedModel
from adk_runtime.tools.mcp_tool import to_mcp_server


def counted(request: LlmRequest) -> str:
    users = [c for c in request.contents if c.role == "user" and c.parts and c.parts[0].text]
    return f"message {len(users)}: {users[-1].parts[0].text}"  # type: ignore[index]


def main() -> None:
    agent = LlmAgent(
        name="counter", description="Counts messages.", model=ScriptedModel(handler=counted)
    )
    runner = Runner(
        app_name="counter", agent=agent, session_service=DatabaseSessionService(sys.argv[1])
    )
    to_mcp_server(agent, runner=runner).run(transport="stdio")


if __name__ == "__main__":
    main()
