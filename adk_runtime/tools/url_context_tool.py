"""url_context: Gemini reads the URLs in the conversation, declared as a built-in tool."""

from __future__ import annotations

from google.genai import types

from adk_runtime.tools._builtin import BuiltInTool

__all__ = ["UrlContextTool", "url_context"]


class UrlContextTool(BuiltInTool):
    """Lets a Gemini model fetch the pages of URLs it is given and answer from them."""

    label = "Url context tool"

    def __init__(self) -> None:
        """Create the tool (google-adk's ``url_context`` is an instance of it)."""
        super().__init__(name="url_context", description="url_context")

    def _config_tool(self) -> types.Tool:
        return types.Tool(url_context=types.UrlContext())


url_context = UrlContextTool()
