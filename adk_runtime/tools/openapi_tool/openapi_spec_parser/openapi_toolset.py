"""``OpenAPIToolset``: every operation of an OpenAPI 3 document as a tool.

The document (a dict, or JSON or YAML text) is read once; each operation becomes a
:class:`RestApiTool` named after its ``operationId`` (snake_case, at most 60 characters),
whose arguments are the operation's parameters and its JSON or form body's properties. The
server is the document's first ``servers`` entry (variables at their defaults).

Requests to hosts on private networks (loopback, RFC 1918, link-local...) are refused unless
``allow_private_network_access=True``: the model picks every argument, so an API's own tool
must not become a way into the network the agent runs in.
"""

from __future__ import annotations

import ssl
from typing import TYPE_CHECKING, Any, Literal

from adk_runtime.core.base_tool import BaseTool
from adk_runtime.core.base_toolset import BaseToolset, ToolPredicate
from adk_runtime.errors import ConfigurationError
from adk_runtime.tools._header_provider import HeaderProvider
from adk_runtime.tools._toolset_auth import auth_config_for
from adk_runtime.tools.openapi_tool.openapi_spec_parser._spec import load_spec, operations
from adk_runtime.tools.openapi_tool.openapi_spec_parser.rest_api_tool import (
    HttpxClientFactory,
    OperationEndpoint,
    RestApiTool,
)

if TYPE_CHECKING:
    from adk_runtime.auth.auth_credential import AuthCredential
    from adk_runtime.auth.auth_schemes import AuthScheme
    from adk_runtime.auth.auth_tool import AuthConfig
    from adk_runtime.core.readonly_context import ReadonlyContext

__all__ = ["OpenAPIToolset"]


def _server_url(document: dict[str, Any]) -> str:
    servers = document.get("servers") or []
    server = servers[0] if servers and isinstance(servers[0], dict) else {}
    url = str(server.get("url", ""))
    for name, variable in (server.get("variables") or {}).items():
        url = url.replace(f"{{{name}}}", str((variable or {}).get("default", "")))
    if not url.startswith(("http://", "https://")):
        raise ConfigurationError(
            "The OpenAPI document names no absolute server URL (servers[0].url, e.g. "
            f"'https://api.example.com/v1'; found {url!r}): add one to the document."
        )
    return url


class OpenAPIToolset(BaseToolset):
    """The operations of an OpenAPI 3 document as tools (see the module docstring)."""

    def __init__(
        self,
        *,
        spec_dict: dict[str, Any] | None = None,
        spec_str: str | None = None,
        spec_str_type: Literal["json", "yaml"] = "json",
        auth_scheme: AuthScheme | None = None,
        auth_credential: AuthCredential | None = None,
        credential_key: str | None = None,
        tool_filter: ToolPredicate | list[str] | None = None,
        tool_name_prefix: str | None = None,
        ssl_verify: bool | str | ssl.SSLContext | None = None,
        header_provider: HeaderProvider | None = None,
        httpx_client_factory: HttpxClientFactory | None = None,
        preserve_property_names: bool = False,
        allow_private_network_access: bool = False,
    ) -> None:
        """Read the document and make its tools.

        Args:
            spec_dict: The document as a dict.
            spec_str: The document as text (instead of ``spec_dict``).
            spec_str_type: ``"json"`` or ``"yaml"``.
            auth_scheme: How the API authenticates (needs the ``auth`` extra): the agent
                gets the credential before the model call, asking the user when it has none
                (as for ``McpToolset``); an API key goes in the header, query or cookie the
                scheme names, other credentials in ``Authorization``.
            auth_credential: What the toolset has for ``auth_scheme`` (an API key, a token,
                an OAuth2 client).
            credential_key: Where the credential is kept (default: derived from the scheme).
            tool_filter: Tool names to offer, or a predicate; None offers all.
            tool_name_prefix: Offer each tool as ``<prefix>_<name>``.
            ssl_verify: Certificate checking: True (default), False, a CA bundle path, or an
                ``ssl.SSLContext``.
            header_provider: ``(readonly_context) -> headers`` added to every request.
            httpx_client_factory: Makes the ``httpx.AsyncClient`` of each call (takes
                precedence over ``ssl_verify``).
            preserve_property_names: Accepted for google-adk's signature: argument names are
                the document's own here (made identifiers where they are not).
            allow_private_network_access: Let requests reach loopback and private addresses.

        Raises:
            ConfigurationError: The document is missing, unreadable, not OpenAPI 3, has no
                absolute server URL, or refers outside itself.
        """
        super().__init__(tool_filter=tool_filter, tool_name_prefix=tool_name_prefix)
        document = load_spec(spec_dict, spec_str, spec_str_type)
        base_url = _server_url(document)
        self._auth_config = auth_config_for(auth_scheme, auth_credential, credential_key)
        self._tools = [
            RestApiTool(
                name=operation.name,
                description=operation.description,
                endpoint=OperationEndpoint(
                    base_url=base_url, path=operation.path, method=operation.method
                ),
                operation=operation,
                auth_config=self._auth_config,
                ssl_verify=ssl_verify,
                header_provider=header_provider,
                httpx_client_factory=httpx_client_factory,
                allow_private_network_access=allow_private_network_access,
            )
            for operation in operations(document)
        ]

    def get_auth_config(self) -> AuthConfig | None:
        """The credential the API needs (from ``auth_scheme``), or None."""
        return self._auth_config

    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        """The document's tools that pass ``tool_filter``, in the document's order."""
        return [tool for tool in self._tools if self._is_tool_selected(tool, readonly_context)]

    def get_tool(self, tool_name: str) -> RestApiTool | None:
        """The tool named ``tool_name`` (without the prefix), or None."""
        return next((tool for tool in self._tools if tool.name == tool_name), None)
