"""google-adk's path; the names live in :mod:`adk_runtime.agents._google_search_agent`."""

from adk_runtime.agents._google_search_agent import (
    GoogleSearchAgentTool,
    create_google_search_agent,
)

__all__ = ["GoogleSearchAgentTool", "create_google_search_agent"]
