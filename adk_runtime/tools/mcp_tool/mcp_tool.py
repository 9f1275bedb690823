"""McpTool: one tool of an MCP server, offered to the model as a function."""

from __future__ import annotations

import inspect
import logging
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, runtime_checkable

import pydantic
from google.genai import types
from mcp.types import Tool

from adk_runtime.core.base_tool import BaseTool
from adk_runtime.tools._confirm import RequireConfirmation, gate, requires_confirmation
from adk_runtime.tools._declaration import function_declaration
from adk_runtime.tools._header_provider import HeaderProvider, headers_for
from adk_runtime.tools.agent_tool import GROUNDING_STATE_KEY
from adk_runtime.tools.mcp_tool.mcp_session_manager import MCPSessionManager

if TYPE_CHECKING:
    from adk_runtime.core.callback_context import CallbackContext
    from adk_runtime.core.tool_context import ToolContext

__all__ = ["HeaderProvider", "MCPTool", "McpTool", "ProgressCallbackFactory", "ProgressFnT"]

logger = logging.getLogger(__name__)


class ProgressFnT(Protocol):
    """An async callback for a tool call's progress notifications (the SDK's signature).

    Called with the server's ``progress``, its ``total`` (None when unknown) and its
    ``message`` (None when it sent none), positionally, as each notification arrives.
    """

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        """Take one progress notification."""
        ...


@runtime_checkable
class ProgressCallbackFactory(Protocol):
    """A plain callable that makes the progress callback of one call (or None for none).

    Called as ``factory(tool_name, callback_context=tool_context)`` before each call, so the
    callback can see the session and write state (``callback_context.state[...]``: the
    writes ride on the call's function response event). Accept ``**kwargs``: later versions
    may pass more.
    """

    def __call__(
        self, tool_name: str, *, callback_context: CallbackContext | None = None, **kwargs: Any
    ) -> ProgressFnT | None:
        """The callback for a call of ``tool_name``, or None."""
        ...


ProgressCallback: TypeAlias = ProgressFnT | ProgressCallbackFactory
"""What ``progress_callback`` takes: a callback, or a factory of callbacks."""


class McpTool(BaseTool):
    """Calls one tool of an MCP server through the toolset's session manager.

    The declaration is the server's: its name, description and input JSON schema. The
    function response is the MCP ``CallToolResult`` as JSON (``content``, ``isError``,
    ``structuredContent``), as google-adk gives it; a tool error reported by the server
    reaches the model there.
    """

    def __init__(
        self,
        *,
        mcp_tool: Tool,
        mcp_session_manager: MCPSessionManager,
        require_confirmation: RequireConfirmation = False,
        header_provider: HeaderProvider | None = None,
        progress_callback: ProgressCallback | None = None,
        propagate_grounding_metadata: bool = False,
    ) -> None:
        """Wrap ``mcp_tool`` as listed by the server.

        With ``propagate_grounding_metadata``, a result whose ``_meta`` carries
        ``adk_grounding_metadata`` (a google-genai ``GroundingMetadata``) has it put on the
        calling agent's next model responses of the invocation, as ``AgentTool`` does.

        ``progress_callback`` receives the server's progress notifications of each call: an
        async callback (:class:`ProgressFnT`), or a :class:`ProgressCallbackFactory` that
        makes one per call.
        """
        super().__init__(name=mcp_tool.name, description=mcp_tool.description or "")
        self.raw_mcp_tool = mcp_tool
        self._mcp_session_manager = mcp_session_manager
        self._require_confirmation = require_confirmation
        self._header_provider = header_provider
        self._progress_callback = progress_callback
        self.propagate_grounding_metadata = propagate_grounding_metadata

    @property
    def visibility(self) -> list[str]:
        """Who the tool is for, from the MCP Apps ``_meta.ui.visibility`` of its definition."""
        ui = _ui_meta(self.raw_mcp_tool).get("ui")
        visibility = ui.get("visibility") if isinstance(ui, dict) else None
        return [str(v) for v in visibility] if isinstance(visibility, list) else []

    @property
    def mcp_app_resource_uri(self) -> str | None:
        """The MCP Apps UI resource (``ui://...``) of the tool, if its definition names one.

        Read from ``_meta.ui.resourceUri``, or the flat ``_meta["ui/resourceUri"]``. MCP Apps
        resources live under the ``ui://`` scheme: any other URI there is not one (None), so a
        client never fetches an ``http://`` or ``file://`` address a server put in its place.
        """
        meta = _ui_meta(self.raw_mcp_tool)
        ui = meta.get("ui")
        uri = ui.get("resourceUri") if isinstance(ui, dict) else None
        uri = uri if uri is not None else meta.get("ui/resourceUri")
        return uri if isinstance(uri, str) and uri.startswith("ui://") else None

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        schema = self.raw_mcp_tool.input_schema or {}
        parameters = schema if schema.get("properties") else None
        return function_declaration(self.name, self.description, parameters)

    async def check_require_confirmation(
        self, args: dict[str, Any], tool_context: ToolContext
    ) -> bool:
        """Whether a call with ``args`` needs the user's confirmation."""
        return await requires_confirmation(self._require_confirmation, args, tool_context)

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Call the server's tool with ``args`` (after confirmation, if required).

        If the connection was lost, it is reopened and the call sent once more.
        """
        refused = await gate(self.name, self._require_confirmation, args, tool_context)
        if refused is not None:
            return refused
        headers = await headers_for(self._header_provider, tool_context)
        name = self.raw_mcp_tool.name
        progress = self._resolve_progress_callback(tool_context)
        result = await self._mcp_session_manager.run(
            lambda session: session.call_tool(name, arguments=args, progress_callback=progress),
            headers,
        )
        response = _as_response(result.model_dump(mode="json", exclude_none=True, by_alias=True))
        if self.propagate_grounding_metadata:
            _pass_grounding_on(self.name, response, tool_context)
        return response

    def _resolve_progress_callback(self, tool_context: ToolContext) -> ProgressFnT | None:
        """This call's progress callback: the callback itself, or what the factory makes."""
        given = self._progress_callback
        if given is None:
            return None
        if _is_async_callable(given):
            return given  # type: ignore[return-value]
        factory: ProgressCallbackFactory = given  # type: ignore[assignment]
        return factory(self.name, callback_context=tool_context)


def _pass_grounding_on(name: str, response: dict[str, Any], tool_context: ToolContext) -> None:
    """Keep the result's ``meta.adk_grounding_metadata`` for the agent's next responses."""
    meta = response.get("meta")
    raw = meta.get("adk_grounding_metadata") if isinstance(meta, dict) else None
    if raw is None:
        return
    try:
        grounding = types.GroundingMetadata.model_validate(raw)
    except pydantic.ValidationError:
        logger.warning("Ignored the malformed adk_grounding_metadata of %s's result.", name)
        return
    tool_context.state[GROUNDING_STATE_KEY] = grounding


def _is_async_callable(value: object) -> bool:
    """A coroutine function, or an object whose ``__call__`` is one."""
    return inspect.iscoroutinefunction(value) or inspect.iscoroutinefunction(
        getattr(value, "__call__", None)  # noqa: B004 - the method, not callable()
    )


def _as_response(result: dict[str, Any]) -> dict[str, Any]:
    """The ``CallToolResult`` keyed as google-adk gives it to the model.

    Wire names (``isError``, ``structuredContent``, ``mimeType``), ``meta`` for the
    metadata field (on the result and its content blocks), no ``resultType``.
    """
    result.pop("resultType", None)
    for item in [result, *result.get("content", [])]:
        if isinstance(item, dict) and "_meta" in item:
            item["meta"] = item.pop("_meta")
    return result


MCPTool = McpTool
"""google-adk's older name of :class:`McpTool`."""


def _ui_meta(tool: Tool) -> dict[str, Any]:
    meta = getattr(tool, "meta", None)
    return meta if isinstance(meta, dict) else {}
