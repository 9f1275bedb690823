"""The agent the model browser test serves: an LlmAgent on the scripted model with a tool.

Each user message makes the model call ``lookup`` with the message's text, then answer
``The answer is <tool result>.``; a second agent hangs below it so the graph has an edge.
"""

from __future__ import annotations

from typing import Any

from adk_runtime.agents import LlmAgent
from adk_runtime.models import LlmRequest
from adk_runtime.testing import Reply, ScriptedModel, function_call


def lookup(query: str) -> dict[str, Any]:
    """Look ``query`` up.

    Args:
        query: What to look up.
    """
    return {"result": f"found {query}"}


def _reply(request: LlmRequest) -> Reply:
    last = request.contents[-1] if request.contents else None
    parts = list(last.parts or []) if last else []
    answers = [p.function_response for p in parts if p.function_response]
    if answers:
        result = (answers[0].response or {}).get("result", "")
        return f"The answer is {result}."
    text = " ".join(p.text or "" for p in parts).strip()
    return function_call("lookup", {"query": text})


helper = LlmAgent(
    name="helper",
    description="Never called; here so the agent graph has an edge.",
    model=ScriptedModel(replies=["unused"]),
)

root_agent = LlmAgent(
    name="model_app",
    description="Looks things up with a scripted model.",
    model=ScriptedModel(handler=_reply),
    instruction="Look things up with the lookup tool.",
    tools=[lookup],
    sub_agents=[helper],
)
