"""An agent for tests/tools/test_mcp_agent_server.py, served with ``adk-runtime mcp``.

Its scripted model answers every request with how many user messages it holds.
"""

from __future__ import annotations

from adk_runtime.agents import LlmAgent
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.testing import ScriptedModel


def counted(request: LlmRequest) -> str:
    users = [c for c in request.contents if c.role == "user" and c.parts and c.parts[0].text]
    return f"message {len(users)}: {users[-1].parts[0].text}"  # type: ignore[index]


root_agent = LlmAgent(
    name="counter", description="Counts messages.", model=ScriptedModel(handler=counted)
)
