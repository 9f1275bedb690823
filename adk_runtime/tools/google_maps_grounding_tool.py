"""google_maps_grounding: Gemini grounds its answer with Google Maps (a built-in tool)."""

from __future__ import annotations

from google.genai import types

from adk_runtime.tools._builtin import BuiltInTool

__all__ = ["GoogleMapsGroundingTool", "google_maps_grounding"]


class GoogleMapsGroundingTool(BuiltInTool):
    """Lets a Gemini model ground its answer in Google Maps data (places, routes, reviews).

    The model runs it; nothing runs locally. Google offers it on the Vertex AI Gemini API
    (``GOOGLE_GENAI_USE_VERTEXAI=true``); the answer's ``grounding_metadata`` is stored on
    the model-response event.
    """

    label = "Google maps tool"

    def __init__(self) -> None:
        """Create the tool (google-adk's ``google_maps_grounding`` is an instance of it)."""
        super().__init__(name="google_maps", description="google_maps")

    def _config_tool(self) -> types.Tool:
        return types.Tool(google_maps=types.GoogleMaps())


google_maps_grounding = GoogleMapsGroundingTool()
