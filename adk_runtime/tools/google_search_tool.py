"""google_search: Gemini's Google Search grounding, declared as a built-in tool."""

from __future__ import annotations

from typing import TYPE_CHECKING

from google.genai import types

from adk_runtime.tools._builtin import BuiltInTool

if TYPE_CHECKING:
    from adk_runtime.core.tool_context import ToolContext
    from adk_runtime.models.llm_request import LlmRequest

__all__ = ["GoogleSearchTool", "google_search"]


class GoogleSearchTool(BuiltInTool):
    """Lets a Gemini model search the web; results arrive as the event's ``grounding_metadata``.

    Attributes:
        bypass_multi_tools_limit: Next to other tools or transfer targets, the agent runs
            the search as a ``GoogleSearchAgentTool`` (a sub-agent the model calls like a
            function), as google-adk does: Gemini models before 3 refuse built-in search
            next to function declarations.
        model: A model name that replaces the request's model when set.
    """

    label = "Google search tool"

    def __init__(self, *, bypass_multi_tools_limit: bool = False, model: str | None = None) -> None:
        """Create the tool (google-adk's ``google_search`` is an instance of it)."""
        super().__init__(name="google_search", description="google_search")
        self.bypass_multi_tools_limit = bypass_multi_tools_limit
        self.model = model

    def _config_tool(self) -> types.Tool:
        return types.Tool(google_search=types.GoogleSearch())

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Use ``model`` if set, then declare Google Search in the config."""
        if self.model is not None:
            llm_request.model = self.model
        await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)


google_search = GoogleSearchTool()
