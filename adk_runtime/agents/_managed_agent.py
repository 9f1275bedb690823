"""ManagedAgent (public as ``adk_runtime.agents.ManagedAgent``): a hosted Gemini agent.

The agent's work runs on Google's Managed Agents API (``interactions.create`` with
``agent=...``), tools and sandbox included; this process sends each turn's message and
stores what comes back. The conversation lives on the API as an interaction chain: every
event of the agent keeps its ``interaction_id`` (and the sandbox's ``environment_id``) in the
session store, and the next turn continues them, across restarts and replicas, as
``Gemini(use_interactions_api=True)`` does.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, Literal

from google.genai import types
from pydantic import ConfigDict, Field, PrivateAttr

from adk_runtime.agents import _interactions, _tasks
from adk_runtime.agents._instructions import canonical_instruction
from adk_runtime.agents._llm_flow import event_for
from adk_runtime.core._instructions import InstructionProvider, render_instruction
from adk_runtime.core.base_agent import BaseAgent
from adk_runtime.core.base_tool import BaseTool
from adk_runtime.core.readonly_context import ReadonlyContext
from adk_runtime.core.run_config import StreamingMode
from adk_runtime.core.tool_context import ToolContext
from adk_runtime.errors import ConfigurationError, UnsupportedFeatureError
from adk_runtime.events import Event
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.models.llm_response import LlmResponse
from adk_runtime.tools._header_provider import headers_for
from adk_runtime.tools._remote_mcp_server import RemoteMcpServer

if TYPE_CHECKING:
    import google.genai as genai

    from adk_runtime.core.invocation_context import InvocationContext

__all__ = ["ManagedAgent"]

logger = logging.getLogger(__name__)

MANAGED_AGENTS_LOCATION = "global"
"""The only Vertex AI location that serves the Managed Agents API."""

_SERVER_SIDE = ("google_search", "code_execution", "url_context", "computer_use")


def _client_location(client: genai.Client) -> str | None:
    # google-genai has no public accessor for a client's location.
    inner: Any = getattr(client, "_api_client", None)
    location = getattr(inner, "location", None)
    return location if isinstance(location, str) else None


def _check_client(client: genai.Client) -> None:
    """Refuse a Vertex AI client outside ``global`` (the API is not served elsewhere)."""
    if not client.vertexai:
        return
    location = _client_location(client)
    if location is not None and location != MANAGED_AGENTS_LOCATION:
        raise ConfigurationError(
            f"ManagedAgent needs a Vertex AI client in the {MANAGED_AGENTS_LOCATION!r} "
            f"location (the only one serving the Managed Agents API); this one is in "
            f"{location!r}."
        )


def _check_raw_tool(tool: types.Tool) -> None:
    if tool.mcp_servers:
        raise UnsupportedFeatureError(
            "ManagedAgent does not take types.Tool(mcp_servers=...): give a RemoteMcpServer."
        )
    if tool.function_declarations:
        raise UnsupportedFeatureError(
            "ManagedAgent runs server-side tools only: function declarations would be "
            "executed by this process."
        )
    if not any(getattr(tool, name) for name in _SERVER_SIDE):
        raise UnsupportedFeatureError(
            "ManagedAgent takes a types.Tool only for "
            f"{', '.join(_SERVER_SIDE)} (server-side tools)."
        )


def _mcp_server_param(server: RemoteMcpServer, headers: dict[str, str]) -> dict[str, Any]:
    param: dict[str, Any] = {"type": "mcp_server", "url": server.url}
    if server.name is not None:
        param["name"] = server.name
    if headers:
        param["headers"] = headers
    if server.allowed_tools is not None:
        param["allowed_tools"] = [{"tools": list(server.allowed_tools)}]
    return param


class ManagedAgent(BaseAgent):
    """An agent run by Google's Managed Agents API; this process relays and stores its turns.

    Each turn sends the user's message to ``interactions.create`` (``agent=agent_id``,
    in the background, streamed), continuing the agent's previous interaction and sandbox
    environment as stored in the session. Only tools the API runs itself are accepted:
    Google Search, code execution, URL context and computer use (as built-in tools or
    ``types.Tool``), and MCP servers the API calls (:class:`RemoteMcpServer`). Tools this
    process would run (functions, ``FunctionTool``) are refused.

    Attributes:
        agent_id: The hosted agent (``"agents/…"`` or a published agent's name).
        environment: The sandbox: a spec (``{"type": "remote"}``) or an environment id. Once
            the API names an environment, later turns reuse that one.
        agent_config: The agent's runtime configuration, passed as it is.
        instruction: The system instruction: a string whose ``{key}`` placeholders are
            filled from the session state (as ``LlmAgent.instruction``), or a callable given
            a ``ReadonlyContext`` (sync or async) whose answer is used as it is.
        tools: The server-side tools (see above).
        mode: ``"single_turn"``: the agent answers its parent's calls as a tool (each call
            a task of its own, as for an ``LlmAgent`` in that mode); None: the parent may
            hand the conversation over to it.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    agent_id: str
    environment: dict[str, Any] | str | None = None
    agent_config: dict[str, Any] | None = None
    instruction: str | InstructionProvider = ""
    tools: list[types.Tool | BaseTool | RemoteMcpServer | Callable[..., Any]] = Field(
        default_factory=list
    )
    mode: Literal["single_turn"] | None = None

    _api_client: genai.Client | None = PrivateAttr(default=None)

    def __init__(self, *, api_client: genai.Client | None = None, **kwargs: Any) -> None:
        """Build the agent; ``api_client``: a google-genai client of your own.

        Raises:
            ConfigurationError: ``api_client`` is a Vertex AI client outside ``global``.
            UnsupportedFeatureError: A tool this process would have to run.
        """
        super().__init__(**kwargs)
        for tool in self.tools:
            if isinstance(tool, types.Tool):
                _check_raw_tool(tool)
            elif not isinstance(tool, BaseTool | RemoteMcpServer):
                raise UnsupportedFeatureError(
                    f"ManagedAgent runs server-side tools only; {tool!r} would run in this process."
                )
        if api_client is not None:
            _check_client(api_client)
        self._api_client = api_client

    @property
    def api_client(self) -> genai.Client:
        """The google-genai client: the one given, else one built from the environment.

        Vertex AI (``GOOGLE_GENAI_USE_VERTEXAI``) is reached in ``global``; otherwise the
        Gemini API with ``GOOGLE_API_KEY``.
        """
        if self._api_client is None:
            import google.genai as genai_module

            client = genai_module.Client()
            if client.vertexai:
                client = genai_module.Client(vertexai=True, location=MANAGED_AGENTS_LOCATION)
            self._api_client = client
        return self._api_client

    async def canonical_instruction(self, ctx: ReadonlyContext) -> tuple[str, bool]:
        """The instruction for this turn, and whether it bypasses state injection.

        A string is returned as it is (placeholders are filled later); a provider's answer
        is final (True).
        """
        return await canonical_instruction(self.instruction, ctx)

    async def _system_instruction(self, ctx: InvocationContext) -> str | None:
        """The instruction rendered as ``LlmAgent.instruction`` is (same placeholders)."""
        return await render_instruction(self.instruction, ReadonlyContext(ctx)) or None

    async def _tool_params(self, ctx: InvocationContext) -> list[dict[str, Any]]:
        """The turn's tools in the API's form (a built-in tool declares itself as usual)."""
        from adk_runtime.models.interactions_utils import (
            convert_tools_config_to_interactions_format,
        )

        request = LlmRequest(config=types.GenerateContentConfig())
        request._is_managed_agent = True
        tool_context = ToolContext(ctx)
        servers: list[dict[str, Any]] = []
        for tool in self.tools:
            if isinstance(tool, RemoteMcpServer):
                made = await headers_for(tool.header_provider, ReadonlyContext(ctx))
                servers.append(_mcp_server_param(tool, {**(tool.headers or {}), **(made or {})}))
            elif isinstance(tool, types.Tool):
                request.config.tools = [*(request.config.tools or []), tool]
            elif isinstance(tool, BaseTool):
                declared = len(request.tools_dict)
                await tool.process_llm_request(tool_context=tool_context, llm_request=request)
                if len(request.tools_dict) > declared or any(
                    t.function_declarations
                    for t in request.config.tools or []
                    if isinstance(t, types.Tool)
                ):
                    raise UnsupportedFeatureError(
                        f"ManagedAgent runs server-side tools only; {tool.name!r} would run "
                        "in this process."
                    )
        return convert_tools_config_to_interactions_format(request.config) + servers

    def _input(self, ctx: InvocationContext) -> types.Content | None:
        """The turn's message: the user's, or the parent's call arguments for a task."""
        if ctx.isolation_scope is not None:
            task = _tasks.task_input(ctx.session.events, ctx.isolation_scope, True)
            if task is not None:
                return task
        return ctx.user_content

    async def _arguments(self, ctx: InvocationContext) -> dict[str, Any]:
        from adk_runtime.models.interactions_utils import contents_to_steps

        previous, environment = _interactions.previous_interaction(
            ctx.session.events, self.name, ctx.branch, ctx.isolation_scope
        )
        message = self._input(ctx)
        arguments: dict[str, Any] = {
            "agent": self.agent_id,
            "input": contents_to_steps([message]) if message is not None else [],
            "background": True,  # the Managed Agents API runs agents in the background
        }
        optional = {
            "tools": await self._tool_params(ctx) or None,
            "environment": environment or self.environment,
            "agent_config": self.agent_config,
            "previous_interaction_id": previous,
            "system_instruction": await self._system_instruction(ctx),
        }
        arguments.update({key: value for key, value in optional.items() if value is not None})
        return arguments

    def _headers(self, ctx: InvocationContext) -> dict[str, str] | None:
        options = ctx.run_config.http_options
        return dict(options.headers) if options is not None and options.headers else None

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        from adk_runtime.models.google_llm import api_error_response
        from adk_runtime.models.interactions_utils import stream_interaction

        arguments = await self._arguments(ctx)
        streaming = ctx.run_config.streaming_mode == StreamingMode.SSE
        reply = self._new_event(ctx)
        try:
            stream = stream_interaction(self.api_client, arguments, self._headers(ctx))
            async with aclosing(stream) as responses:
                async for response in responses:
                    if response.partial and not streaming:
                        continue
                    event = event_for(response, reply)
                    if event is None:
                        continue
                    yield event
                    if not event.partial:
                        reply = self._new_event(ctx)
        except Exception as exc:
            failed = api_error_response(exc)
            if failed is None:
                raise
            yield self._error(ctx, failed)

    def _new_event(self, ctx: InvocationContext) -> Event:
        return Event(
            invocation_id=ctx.invocation_id,
            author=self.name,
            branch=ctx.branch,
            isolation_scope=ctx.isolation_scope,
        )

    def _error(self, ctx: InvocationContext, response: LlmResponse) -> Event:
        response.turn_complete = True
        event = event_for(response, self._new_event(ctx))  # made storable as replies are
        assert event is not None  # an error response always makes an event
        logger.warning(
            "ManagedAgent %s: the Managed Agents API refused the turn (%s).",
            self.name,
            event.error_code,
        )
        return event
