"""``McpToolset`` in an agent YAML file: ``tools: [{name: McpToolset, args: {...}}]``.

The ``args`` are google-adk's ``McpToolsetConfig``: exactly one of ``stdio_server_params``,
``stdio_connection_params``, ``sse_connection_params`` and
``streamable_http_connection_params``, and the toolset's options. A stdio server is a command
the loader would start, so a config may declare one only when the application allows it
(``ADK_ALLOW_CONFIG_STDIO_MCP_SERVERS=1``, google-adk's switch): an untrusted YAML file must
not run programs.
"""

from __future__ import annotations

from typing import Any

from mcp import StdioServerParameters
from pydantic import model_validator

from adk_runtime.core._tool_configs import BaseToolConfig, ToolArgsConfig
from adk_runtime.errors import AgentConfigError
from adk_runtime.tools.mcp_tool._params import (
    ConnectionParams,
    SseConnectionParams,
    StdioConnectionParams,
    StreamableHTTPConnectionParams,
)
from adk_runtime.utils.env_utils import is_env_enabled

__all__ = ["ALLOW_CONFIG_STDIO_SERVERS_ENV_VAR", "McpToolsetConfig", "toolset_arguments"]

ALLOW_CONFIG_STDIO_SERVERS_ENV_VAR = "ADK_ALLOW_CONFIG_STDIO_MCP_SERVERS"
"""Set to ``1`` to let agent YAML files declare stdio MCP servers (commands to start)."""

_CONNECTIONS = (
    "stdio_server_params",
    "stdio_connection_params",
    "sse_connection_params",
    "streamable_http_connection_params",
)


class McpToolsetConfig(BaseToolConfig):
    """The ``args`` of an ``McpToolset`` entry in an agent YAML file.

    Attributes:
        stdio_server_params: A command to start (``StdioServerParameters``).
        stdio_connection_params: The same with a timeout (``StdioConnectionParams``).
        sse_connection_params: An SSE server.
        streamable_http_connection_params: A streamable HTTP server.
        tool_filter: The tool names to offer (all when unset).
        tool_name_prefix: Offer each tool as ``<prefix>_<name>``.
        tool_list_cache_ttl_seconds: Reuse the server's tool list for this long.
        auth_scheme: How the server authenticates users (an OpenAPI security scheme; needs
            the ``auth`` extra).
        auth_credential: What the toolset has for ``auth_scheme``.
        credential_key: Where the user's credential is kept.
        use_mcp_resources: Also offer ``load_mcp_resource``.
    """

    stdio_server_params: StdioServerParameters | None = None
    stdio_connection_params: StdioConnectionParams | None = None
    sse_connection_params: SseConnectionParams | None = None
    streamable_http_connection_params: StreamableHTTPConnectionParams | None = None
    tool_filter: list[str] | None = None
    tool_name_prefix: str | None = None
    tool_list_cache_ttl_seconds: float | None = None
    auth_scheme: dict[str, Any] | None = None
    auth_credential: dict[str, Any] | None = None
    credential_key: str | None = None
    use_mcp_resources: bool = False

    @model_validator(mode="after")
    def _one_server(self) -> McpToolsetConfig:
        given = [name for name in _CONNECTIONS if getattr(self, name) is not None]
        if len(given) != 1:
            raise ValueError(
                f"give exactly one of {', '.join(_CONNECTIONS)} (got {', '.join(given) or 'none'})"
            )
        return self

    def connection(self) -> ConnectionParams:
        """The one server these args name."""
        for name in _CONNECTIONS:
            value = getattr(self, name)
            if value is not None:
                return value  # type: ignore[no-any-return]
        raise AssertionError("validated: exactly one is set")


def toolset_arguments(config: ToolArgsConfig | dict[str, Any]) -> dict[str, Any]:
    """``McpToolset`` keyword arguments from an entry's ``args``.

    Raises:
        pydantic.ValidationError: The args do not fit ``McpToolsetConfig``, or carry an auth
            scheme or credential that does not validate (the config loader reports it as an
            ``AgentConfigError`` naming the file and the field).
        AgentConfigError: The args name a stdio server while
            ``ADK_ALLOW_CONFIG_STDIO_MCP_SERVERS`` is off.
    """
    data = config.model_dump() if isinstance(config, ToolArgsConfig) else dict(config)
    parsed = McpToolsetConfig.model_validate(data)
    connection = parsed.connection()
    stdio = isinstance(connection, StdioServerParameters | StdioConnectionParams)
    if stdio and not is_env_enabled(ALLOW_CONFIG_STDIO_SERVERS_ENV_VAR):
        raise AgentConfigError(
            "An agent config may not start a stdio MCP server (its command would run when the "
            "agent is built): build the McpToolset in Python, use sse_connection_params or "
            f"streamable_http_connection_params, or set {ALLOW_CONFIG_STDIO_SERVERS_ENV_VAR}=1 "
            "if this application loads only configs it trusts."
        )
    arguments: dict[str, Any] = {
        "connection_params": connection,
        "tool_filter": parsed.tool_filter,
        "tool_name_prefix": parsed.tool_name_prefix,
        "tool_list_cache_ttl_seconds": parsed.tool_list_cache_ttl_seconds,
        "credential_key": parsed.credential_key,
        "use_mcp_resources": parsed.use_mcp_resources,
    }
    if parsed.auth_scheme is not None or parsed.auth_credential is not None:
        arguments.update(_auth(parsed))
    return arguments


def _auth(parsed: McpToolsetConfig) -> dict[str, Any]:
    from pydantic import TypeAdapter

    from adk_runtime.auth.auth_credential import AuthCredential
    from adk_runtime.auth.auth_schemes import AuthScheme

    scheme = (
        None
        if parsed.auth_scheme is None
        else TypeAdapter(AuthScheme).validate_python(parsed.auth_scheme)
    )
    credential = (
        None
        if parsed.auth_credential is None
        else AuthCredential.model_validate(parsed.auth_credential)
    )
    return {"auth_scheme": scheme, "auth_credential": credential}
