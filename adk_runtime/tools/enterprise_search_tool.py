"""enterprise_web_search: Gemini's web grounding for enterprise compliance (a built-in tool)."""

from __future__ import annotations

from google.genai import types

from adk_runtime.tools._builtin import BuiltInTool

__all__ = ["EnterpriseWebSearchTool", "enterprise_web_search_tool"]


class EnterpriseWebSearchTool(BuiltInTool):
    """Lets a Gemini model (on Vertex AI) ground its answer with enterprise web search.

    Not Vertex AI Search: see Google Cloud's "web grounding for enterprise" documentation.
    """

    label = "Enterprise Web Search tool"

    def __init__(self) -> None:
        """Create the tool (google-adk's ``enterprise_web_search`` is an instance of it)."""
        super().__init__(name="enterprise_web_search", description="enterprise_web_search")

    def _config_tool(self) -> types.Tool:
        return types.Tool(enterprise_web_search=types.EnterpriseWebSearch())


enterprise_web_search_tool = EnterpriseWebSearchTool()
