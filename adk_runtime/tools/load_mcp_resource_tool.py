"""load_mcp_resource: the model asks for an MCP server's resources and sees them next call."""

from __future__ import annotations

import base64
import binascii
import json
import logging
from typing import TYPE_CHECKING, Any

from google.genai import types

from adk_runtime.tools._names_tool import NamesTool

if TYPE_CHECKING:
    from adk_runtime.core.tool_context import ToolContext
    from adk_runtime.models.llm_request import LlmRequest
    from adk_runtime.tools.mcp_tool.mcp_toolset import McpToolset

__all__ = ["LoadMcpResourceTool"]

logger = logging.getLogger(__name__)


class LoadMcpResourceTool(NamesTool):
    """Lists an MCP server's resources to the model and shows the ones it asks for.

    Offered by ``McpToolset(use_mcp_resources=True)``. Like ``load_artifacts``, the contents
    go into the next model request only, never into the session.
    """

    def __init__(self, mcp_toolset: McpToolset) -> None:
        """Serve the resources of ``mcp_toolset``'s server."""
        super().__init__(
            name="load_mcp_resource", parameter="resource_names", things="MCP resources"
        )
        self._status = (
            "The resource contents are temporarily inserted into your next step only; call "
            "load_mcp_resource again to read them in a later one."
        )
        self._mcp_toolset = mcp_toolset

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Offer the tool, list the resources, and attach the ones just asked for."""
        await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)
        try:
            names = await self._mcp_toolset.list_resources(tool_context)
            if names:
                llm_request._append_dynamic_instructions(
                    [
                        f"You have a list of MCP resources:\n{json.dumps(names)}\n\nWhen the "
                        "user asks about any of them, call the `load_mcp_resource` function "
                        "to load it before answering."
                    ]
                )
        except Exception as exc:
            logger.warning("Listing the MCP resources failed: %s", type(exc).__name__)
        for name in self._requested(llm_request):
            try:
                contents = await self._mcp_toolset.read_resource(name, tool_context)
            except Exception as exc:
                logger.warning("Reading MCP resource %r failed: %s", name, type(exc).__name__)
                continue
            for content in contents:
                llm_request.contents.append(
                    types.Content(
                        role="user",
                        parts=[types.Part(text=f"Resource {name} is:"), _as_part(content, name)],
                    )
                )

    def _requested(self, llm_request: LlmRequest) -> list[str]:
        last = llm_request.contents[-1] if llm_request.contents else None
        names: list[str] = []
        for part in (last.parts if last else None) or []:
            response = part.function_response
            if response is not None and response.name == self.name:
                found = (response.response or {}).get("resource_names", [])
                names.extend(n for n in found if isinstance(n, str))
        return names


def _as_part(content: Any, name: str) -> types.Part:
    text = getattr(content, "text", None)
    if text is not None:
        return types.Part(text=text)
    blob = getattr(content, "blob", None)
    if blob is None:
        return types.Part(text=f"[Unknown content type for {name}]")
    mime_type = (
        getattr(content, "mime_type", None)
        or getattr(content, "mimeType", None)
        or "application/octet-stream"
    )
    try:
        data = base64.b64decode(blob, validate=True)
    except (binascii.Error, ValueError):
        return types.Part(text=f"[Binary content for {name} could not be decoded]")
    return types.Part(inline_data=types.Blob(data=data, mime_type=mime_type))
