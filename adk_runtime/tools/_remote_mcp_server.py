"""RemoteMcpServer (public as ``adk_runtime.tools.RemoteMcpServer``): MCP run by the API."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from adk_runtime.tools._header_provider import HeaderProvider

__all__ = ["RemoteMcpServer"]


class RemoteMcpServer(BaseModel):
    """A remote MCP server that the Managed Agents API connects to and calls, not this process.

    A tool of :class:`~adk_runtime.agents.ManagedAgent`: its URL and headers go to
    ``interactions.create`` with each turn. (An ``LlmAgent`` reaches MCP servers itself, with
    ``McpToolset``.)

    Attributes:
        url: The server's HTTP (streamable) endpoint.
        name: A label for the server.
        headers: Headers sent with every turn (an API key, say).
        allowed_tools: Only these of the server's tools are offered to the agent.
        header_provider: Called with the turn's ``ReadonlyContext`` (sync or async) for
            headers made at request time (a fresh token); they win over ``headers``.
    """

    # Headers carry credentials: kept out of reprs, and bad input is not echoed in errors.
    model_config = ConfigDict(
        arbitrary_types_allowed=True, extra="forbid", hide_input_in_errors=True
    )

    url: str
    name: str | None = None
    headers: dict[str, str] | None = Field(default=None, repr=False)
    allowed_tools: list[str] | None = None
    header_provider: HeaderProvider | None = None
