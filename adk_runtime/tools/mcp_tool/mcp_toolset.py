"""McpToolset: the tools of an MCP server, listed for each invocation."""

from __future__ import annotations

import logging
import sys
import time
import warnings
from typing import TYPE_CHECKING, Any, TextIO

from mcp import ClientSession
from mcp.client.session import ElicitationFnT, SamplingFnT
from mcp.types import PaginatedRequestParams, SamplingCapability, Tool

from adk_runtime.core._tool_configs import ToolArgsConfig
from adk_runtime.core.base_tool import BaseTool
from adk_runtime.core.base_toolset import BaseToolset, ToolPredicate
from adk_runtime.core.readonly_context import ReadonlyContext
from adk_runtime.tools._confirm import RequireConfirmation
from adk_runtime.tools._header_provider import HeaderProvider, headers_for
from adk_runtime.tools._toolset_auth import auth_config_for
from adk_runtime.tools.mcp_tool._config import (
    ALLOW_CONFIG_STDIO_SERVERS_ENV_VAR,
    McpToolsetConfig,
    toolset_arguments,
)
from adk_runtime.tools.mcp_tool._params import ConnectionParams
from adk_runtime.tools.mcp_tool.mcp_session_manager import MCPSessionManager
from adk_runtime.tools.mcp_tool.mcp_tool import McpTool, ProgressCallback

if TYPE_CHECKING:
    from adk_runtime.auth.auth_credential import AuthCredential
    from adk_runtime.auth.auth_schemes import AuthScheme
    from adk_runtime.auth.auth_tool import AuthConfig

__all__ = ["ALLOW_CONFIG_STDIO_SERVERS_ENV_VAR", "MCPToolset", "McpToolset", "McpToolsetConfig"]

logger = logging.getLogger(__name__)

_RESERVED = frozenset({"transfer_to_agent", "adk_request_confirmation"})


class McpToolset(BaseToolset):
    """Connects to an MCP server and offers its tools to an ``LlmAgent``.

    The server is started (stdio) or reached (streamable HTTP, SSE) on first use; its tools
    are listed before each invocation's first model call (or cached for
    ``tool_list_cache_ttl_seconds``) and called through the same session. Call
    ``await runner.close()`` (or ``await toolset.close()``) when done: it ends the session
    and stops a stdio server process.

    Example:
        ```python
        toolset = McpToolset(
            connection_params=StdioConnectionParams(
                server_params=StdioServerParameters(command="python", args=["server.py"])
            ),
            tool_filter=["add"],
        )
        agent = LlmAgent(name="calc", model="gemini-2.5-flash", tools=[toolset])
        ```
    """

    def __init__(
        self,
        *,
        connection_params: ConnectionParams,
        tool_filter: ToolPredicate | list[str] | None = None,
        tool_name_prefix: str | None = None,
        tool_list_cache_ttl_seconds: float | None = None,
        errlog: TextIO = sys.stderr,
        require_confirmation: RequireConfirmation = False,
        header_provider: HeaderProvider | None = None,
        use_mcp_resources: bool | None = False,
        auth_scheme: AuthScheme | None = None,
        auth_credential: AuthCredential | None = None,
        credential_key: str | None = None,
        progress_callback: ProgressCallback | None = None,
        sampling_callback: SamplingFnT | None = None,
        sampling_capabilities: SamplingCapability | None = None,
        elicitation_callback: ElicitationFnT | None = None,
        propagate_grounding_metadata: bool = False,
    ) -> None:
        """Create the toolset (nothing connects until the tools are first needed).

        Args:
            connection_params: ``StdioConnectionParams`` (or ``StdioServerParameters``),
                ``StreamableHTTPConnectionParams`` or ``SseConnectionParams``.
            tool_filter: Tool names to offer, or a predicate; None offers all.
            tool_name_prefix: Offer each tool as ``<prefix>_<name>``.
            tool_list_cache_ttl_seconds: Reuse the server's tool list for this long
                (per set of headers); None lists it for every invocation.
            errlog: Where a stdio server's stderr goes.
            require_confirmation: Every call (True), or the calls a predicate of the
                arguments picks, first asks the user to confirm.
            header_provider: ``(readonly_context) -> headers`` added to HTTP requests.
            use_mcp_resources: Also offer ``load_mcp_resource``, which shows the server's
                resources to the model.
            auth_scheme: How the server authenticates its users (needs the ``auth``
                extra): before the model call the agent gets the user's credential (or asks
                for it, pausing the invocation) and every request to the server carries it
                (``Authorization: Bearer …``, basic, or the API key's header).
            auth_credential: What the toolset has for ``auth_scheme`` (e.g. the OAuth2
                client).
            credential_key: Where the credential is kept (default: derived from the scheme
                and the client).
            progress_callback: Receives the server's progress notifications of each tool
                call: an async ``(progress, total, message)`` callback, or a factory
                ``(tool_name, *, callback_context, **kwargs)`` that makes one per call (see
                ``mcp_tool.ProgressCallbackFactory``).
            sampling_callback: Answers the server's sampling requests (it asks for a model
                completion while a tool runs): the MCP SDK's ``SamplingFnT``,
                ``(context, CreateMessageRequestParams) -> CreateMessageResult``.
            sampling_capabilities: What that sampling supports (``SamplingCapability``).
            elicitation_callback: Answers the server's elicitation requests (it asks the
                user for input while a tool runs): the MCP SDK's ``ElicitationFnT``,
                ``(context, ElicitRequestParams) -> ElicitResult``.
            propagate_grounding_metadata: A result whose ``_meta`` carries
                ``adk_grounding_metadata`` grounds the agent's next model responses of the
                invocation (see ``McpTool``).

        Raises:
            McpConfigurationError: ``connection_params`` is missing or names no MCP server
                (a ``ValueError``).
        """
        super().__init__(tool_filter=tool_filter, tool_name_prefix=tool_name_prefix)
        self._mcp_session_manager = MCPSessionManager(
            connection_params,
            errlog=errlog,
            sampling_callback=sampling_callback,
            sampling_capabilities=sampling_capabilities,
            elicitation_callback=elicitation_callback,
        )
        self._errlog = errlog
        self._auth_scheme = auth_scheme
        self._auth_credential = auth_credential
        self._require_confirmation = require_confirmation
        self._header_provider = header_provider
        self._progress_callback = progress_callback
        self._propagate_grounding_metadata = propagate_grounding_metadata
        self._ttl = tool_list_cache_ttl_seconds
        self._use_mcp_resources = bool(use_mcp_resources)
        self._listed: dict[str, tuple[float, list[Tool]]] = {}
        self._auth_config = auth_config_for(auth_scheme, auth_credential, credential_key)

    def get_auth_config(self) -> AuthConfig | None:
        """The credential the server needs (from ``auth_scheme``), or None."""
        return self._auth_config

    async def _headers(self, readonly_context: ReadonlyContext | None) -> dict[str, str]:
        """The provider's headers, and the user's credential's (which win on a clash)."""
        headers = await headers_for(self._header_provider, readonly_context) or {}
        config = self._auth_config
        if config is None or readonly_context is None:
            return headers
        from adk_runtime.auth._auth_headers import auth_headers

        credential = readonly_context.get_credential(config.credential_key or "")
        carried = auth_headers(credential, config.auth_scheme)
        if not carried:
            return headers
        names = {name.lower() for name in carried}
        merged = {k: v for k, v in headers.items() if k.lower() not in names}
        merged.update(carried)
        return merged

    @classmethod
    def from_config(cls, config: ToolArgsConfig, config_abs_path: str) -> McpToolset:
        """The toolset an agent YAML file's ``McpToolset`` entry describes.

        ``config`` holds google-adk's ``McpToolsetConfig`` fields (see
        :class:`McpToolsetConfig`); a stdio server needs ``ADK_ALLOW_CONFIG_STDIO_MCP_SERVERS=1``.

        Raises:
            pydantic.ValidationError: The args do not fit (the config loader reports it as an
                ``AgentConfigError`` naming the file and the field).
            AgentConfigError: The args name a stdio server that is not allowed.
        """
        del config_abs_path  # nothing in the args is a path relative to the file
        return cls(**toolset_arguments(config))

    @property
    def connection_params(self) -> ConnectionParams:
        """How the server is reached."""
        return self._mcp_session_manager.connection_params

    @property
    def auth_scheme(self) -> AuthScheme | None:
        """How the server authenticates its users, as given."""
        return self._auth_scheme

    @property
    def auth_credential(self) -> AuthCredential | None:
        """The toolset's credential for ``auth_scheme``, as given."""
        return self._auth_credential

    @property
    def require_confirmation(self) -> RequireConfirmation:
        """Whether (or for which calls, a predicate) a call needs the user's confirmation."""
        return self._require_confirmation

    @property
    def header_provider(self) -> HeaderProvider | None:
        """The provider of extra HTTP headers, as given."""
        return self._header_provider

    @property
    def errlog(self) -> TextIO:
        """Where a stdio server's stderr goes."""
        return self._errlog

    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        """The server's tools that pass ``tool_filter``, sorted by name.

        Raises:
            ConnectionError: The server cannot be started or reached.
        """
        headers = await self._headers(readonly_context)
        listed = await self._list(headers)
        tools: list[BaseTool] = []
        for mcp_tool in listed:
            if mcp_tool.name in _RESERVED:
                logger.warning("MCP tool %r skipped: the name is reserved.", mcp_tool.name)
                continue
            tool = McpTool(
                mcp_tool=mcp_tool,
                mcp_session_manager=self._mcp_session_manager,
                require_confirmation=self._require_confirmation,
                header_provider=self._headers,
                progress_callback=self._progress_callback,
                propagate_grounding_metadata=self._propagate_grounding_metadata,
            )
            if self._is_tool_selected(tool, readonly_context):
                tools.append(tool)
        tools.sort(key=lambda tool: tool.name)
        if self._use_mcp_resources:
            from adk_runtime.tools.load_mcp_resource_tool import LoadMcpResourceTool

            tools.append(LoadMcpResourceTool(mcp_toolset=self))
        return tools

    async def _list(self, headers: dict[str, str] | None) -> list[Tool]:
        key = repr(sorted((headers or {}).items()))
        cached = self._listed.get(key)
        if cached is not None and self._ttl is not None and time.monotonic() < cached[0]:
            return cached[1]
        tools = await self._mcp_session_manager.run(_list_all, headers)
        if self._ttl is not None:
            self._listed[key] = (time.monotonic() + self._ttl, tools)
        return tools

    async def list_resources(self, readonly_context: ReadonlyContext | None = None) -> list[str]:
        """The names of the server's resources."""
        return [resource["name"] for resource in await self._resources(readonly_context)]

    async def get_resource_info(
        self, name: str, readonly_context: ReadonlyContext | None = None
    ) -> dict[str, Any]:
        """The server's description of resource ``name`` (uri, MIME type, ...).

        Raises:
            ValueError: The server has no resource of that name.
        """
        for resource in await self._resources(readonly_context):
            if resource["name"] == name:
                return resource
        raise ValueError(f"Resource with name {name!r} not found.")

    async def read_resource(
        self, name: str, readonly_context: ReadonlyContext | None = None
    ) -> Any:
        """The contents of resource ``name`` (MCP text or blob contents).

        Raises:
            ValueError: The server has no resource of that name.
        """
        info = await self.get_resource_info(name, readonly_context)
        headers = await self._headers(readonly_context)
        result = await self._mcp_session_manager.run(
            lambda session: session.read_resource(info["uri"]), headers
        )
        return result.contents

    async def _resources(self, readonly_context: ReadonlyContext | None) -> list[dict[str, Any]]:
        headers = await self._headers(readonly_context)
        result = await self._mcp_session_manager.run(
            lambda session: session.list_resources(), headers
        )
        return [
            resource.model_dump(mode="json", exclude_none=True, by_alias=True)
            for resource in result.resources
        ]

    async def close(self) -> None:
        """End the MCP sessions (a stdio server process is stopped); safe to call twice."""
        self._listed.clear()
        try:
            await self._mcp_session_manager.close()
        except Exception as exc:
            logger.warning("Closing the MCP toolset failed: %s: %s", type(exc).__name__, exc)


async def _list_all(session: ClientSession) -> list[Tool]:
    """Every tool of the server (all pages)."""
    tools: list[Tool] = []
    cursor: str | None = None
    while True:
        params = PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            return tools


class MCPToolset(McpToolset):
    """google-adk's older name of :class:`McpToolset` (deprecated there too)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Warn, then create an :class:`McpToolset`."""
        warnings.warn(
            "MCPToolset is deprecated, use McpToolset instead.", DeprecationWarning, stacklevel=2
        )
        super().__init__(*args, **kwargs)
