"""GoogleSearchAgentTool: Google Search run by a sub-agent, callable next to function tools.

Public at google-adk's path ``adk_runtime.tools.google_search_agent_tool``; here, as it builds an
``LlmAgent``.
"""

from __future__ import annotations

from adk_runtime.agents.llm_agent import LlmAgent
from adk_runtime.models.base_llm import BaseLlm
from adk_runtime.tools.agent_tool import AgentTool
from adk_runtime.tools.google_search_tool import google_search

__all__ = ["GoogleSearchAgentTool", "create_google_search_agent"]

_INSTRUCTION = (
    "You answer search queries with Google Search. Search, then answer the query directly "
    "from what you found; never try to call a function."
)


def create_google_search_agent(model: str | BaseLlm) -> LlmAgent:
    """An agent named ``google_search_agent`` whose only tool is ``google_search``.

    Args:
        model: The (Gemini) model it searches with.
    """
    return LlmAgent(
        name="google_search_agent",
        model=model,
        description="Searches the web with Google Search and answers from the results.",
        instruction=_INSTRUCTION,
        tools=[google_search],
    )


class GoogleSearchAgentTool(AgentTool):
    """Offers Google Search as a function: the model calls it, a search agent answers.

    Gemini models before 3.0 refuse a request that declares the built-in ``google_search``
    together with function declarations. An agent whose tools include
    ``GoogleSearchTool(bypass_multi_tools_limit=True)`` next to other tools (or that can
    transfer to other agents) is therefore given this tool instead: the search runs in a
    sub-agent of its own (see ``create_google_search_agent``) and its answer comes back as
    the function's result. The search's ``grounding_metadata`` is passed on: the calling
    agent's next model responses in the invocation carry it (``propagate_grounding_metadata``
    of ``AgentTool``), so the sources reach the client and the session.

    Attributes:
        agent: The search agent.
    """

    agent: LlmAgent

    def __init__(self, agent: LlmAgent) -> None:
        """Wrap ``agent`` (usually built by ``create_google_search_agent``)."""
        super().__init__(agent=agent, propagate_grounding_metadata=True)
