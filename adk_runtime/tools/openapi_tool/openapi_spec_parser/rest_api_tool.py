"""``RestApiTool``: one operation of an OpenAPI document, called over HTTP (httpx).

The model's arguments are placed where the document says (path, query, header, cookie, JSON
or form body); the credential of the toolset's ``auth_scheme`` and the ``header_provider``'s
headers are added. The answer is the response's JSON (or ``{"text": ...}``); an HTTP error,
a refused host or a failed connection is answered as ``{"error": ...}`` for the model to
act on. Long answers are cut (``MAX_RESPONSE_CHARS``).
"""

from __future__ import annotations

import json
import ssl
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias
from urllib.parse import quote, urlsplit

import httpx
from google.genai import types
from pydantic import BaseModel

from adk_runtime.core.base_tool import BaseTool
from adk_runtime.tools._declaration import function_declaration
from adk_runtime.tools._header_provider import HeaderProvider, headers_for
from adk_runtime.tools.openapi_tool._network import PrivateNetworkError, check_public
from adk_runtime.tools.openapi_tool.openapi_spec_parser._spec import Operation

if TYPE_CHECKING:
    from adk_runtime.auth.auth_tool import AuthConfig
    from adk_runtime.core.tool_context import ToolContext

__all__ = ["HttpxClientFactory", "OperationEndpoint", "RestApiTool"]

HttpxClientFactory: TypeAlias = Callable[[], httpx.AsyncClient]
"""A zero-argument callable making the client of each call (proxies, mTLS, transports)."""

MAX_RESPONSE_CHARS = 100_000
"""The most characters of a response body handed to the model (and stored with the call)."""

_TIMEOUT = httpx.Timeout(60.0, connect=10.0)


class OperationEndpoint(BaseModel):
    """Where an operation is served: the server's URL, the path template, the method."""

    base_url: str
    path: str
    method: str


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


class RestApiTool(BaseTool):
    """Calls one operation of an OpenAPI document (see the module docstring)."""

    def __init__(
        self,
        name: str,
        description: str,
        endpoint: OperationEndpoint,
        operation: Operation,
        *,
        auth_config: AuthConfig | None = None,
        ssl_verify: bool | str | ssl.SSLContext | None = None,
        header_provider: HeaderProvider | None = None,
        httpx_client_factory: HttpxClientFactory | None = None,
        allow_private_network_access: bool = False,
    ) -> None:
        """Create the tool for ``operation`` served at ``endpoint``."""
        super().__init__(name=name, description=description)
        self.endpoint = endpoint
        self.operation = operation
        self._auth_config = auth_config
        self._ssl_verify = True if ssl_verify is None else ssl_verify
        self._header_provider = header_provider
        self._client_factory = httpx_client_factory
        self._allow_private = allow_private_network_access

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        schema = self.operation.parameters_schema()
        parameters = schema if schema["properties"] else None
        return function_declaration(self.name, self.description, parameters)

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Send the request; the response's JSON, or ``{"error": ...}``."""
        missing = [a.name for a in self.operation.arguments if a.required and a.name not in args]
        if missing:
            return {"error": f"{self.name} needs the arguments {missing}; call it again with them."}
        request = self._request(args)
        await self._add_credentials(request, tool_context)
        host = urlsplit(request["url"]).hostname or ""
        if not self._allow_private:
            try:
                await check_public(host)
            except PrivateNetworkError as exc:
                return {"error": str(exc)}
        try:
            response = await self._send(request)
        except httpx.HTTPError as exc:
            return {"error": f"{self.name}: the request failed ({type(exc).__name__}: {exc})."}
        return _answer(self.name, response)

    def _request(self, args: dict[str, Any]) -> dict[str, Any]:
        path = self.endpoint.path
        query: list[tuple[str, str]] = []
        headers: dict[str, str] = {}
        cookies: dict[str, str] = {}
        body: dict[str, Any] = {}
        whole: Any = None
        for argument in self.operation.arguments:
            if argument.name not in args or args[argument.name] is None:
                continue
            value = args[argument.name]
            if argument.location == "path":
                path = path.replace(f"{{{argument.wire_name}}}", quote(_text(value), safe=""))
            elif argument.location == "query":
                values = value if isinstance(value, list) else [value]
                query += [(argument.wire_name, _text(item)) for item in values]
            elif argument.location == "header":
                headers[argument.wire_name] = _text(value)
            elif argument.location == "cookie":
                cookies[argument.wire_name] = _text(value)
            elif self.operation.body_is_whole:
                whole = value
            else:
                body[argument.wire_name] = value
        request: dict[str, Any] = {
            "method": self.endpoint.method,
            "url": self.endpoint.base_url.rstrip("/") + path,
            "params": query,
            "headers": headers,
            "cookies": cookies,
        }
        content = whole if self.operation.body_is_whole else (body or None)
        if content is not None:
            kind = self.operation.content_type or "application/json"
            request["data" if kind.endswith("x-www-form-urlencoded") else "json"] = content
        return request

    async def _add_credentials(self, request: dict[str, Any], tool_context: ToolContext) -> None:
        request["headers"].update(await headers_for(self._header_provider, tool_context) or {})
        config = self._auth_config
        if config is None:
            return
        credential = tool_context.get_credential(config.credential_key or "")
        if credential is None:
            return
        from fastapi.openapi.models import APIKeyIn

        from adk_runtime.auth._auth_headers import auth_headers

        where = getattr(config.auth_scheme, "in_", None)
        key_name = getattr(config.auth_scheme, "name", None)
        if credential.api_key and key_name and where == APIKeyIn.query:
            request["params"].append((key_name, credential.api_key))
        elif credential.api_key and key_name and where == APIKeyIn.cookie:
            request["cookies"][key_name] = credential.api_key
        else:
            request["headers"].update(auth_headers(credential, config.auth_scheme) or {})

    async def _send(self, request: dict[str, Any]) -> httpx.Response:
        cookies: dict[str, str] = request.pop("cookies")
        if cookies:  # one Cookie header (httpx deprecates per-request cookie jars)
            pairs = [f"{name}={quote(value, safe='')}" for name, value in cookies.items()]
            request["headers"]["Cookie"] = "; ".join(pairs)
        if self._client_factory is not None:
            async with self._client_factory() as client:
                return await client.request(**request)
        async with httpx.AsyncClient(verify=self._ssl_verify, timeout=_TIMEOUT) as client:
            return await client.request(**request)


def _answer(name: str, response: httpx.Response) -> Any:
    text = response.text
    if len(text) > MAX_RESPONSE_CHARS:
        text = text[:MAX_RESPONSE_CHARS] + f"… [cut: {len(response.text)} characters in all]"
    if response.status_code >= 400:
        return {"error": f"{name}: the API answered HTTP {response.status_code}: {text}"}
    if not text:
        return {"status_code": response.status_code}
    try:
        parsed = json.loads(text)
    except ValueError:
        return {"text": text}
    return parsed if isinstance(parsed, dict) else {"result": parsed}
