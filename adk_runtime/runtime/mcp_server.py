"""An agent served as an MCP server: one tool that runs it (``to_mcp_server``).

Public at google-adk's path ``adk_runtime.tools.mcp_tool``, which loads it on first use; it
lives here, with the Runner it serves the agent through. Needs the ``mcp`` extra.

An MCP host (an IDE, a coding assistant, any MCP client) calls the tool with a request
string and gets the agent's final reply as MCP content: text, images, audio, other data as
an embedded resource; the agent's intermediate text goes out as progress notifications.

Which conversation a call continues: the ``session_id`` argument when given (the id every
answer reports in its ``_meta["session_id"]``); else, on a stateful (initialize-handshake)
connection, the one that connection had, so successive calls on it are one conversation as
in google-adk; else a new one. The MCP protocol's stateless mode (2026-07-28) has no
connection to hold on to, so there the ``session_id`` argument is the way to continue. With
a Runner on a durable store (``runner=Runner(..., session_service=DatabaseSessionService(url))``)
every turn is committed there as any other turn is, and a conversation outlives the server
process.
"""

from __future__ import annotations

import base64
import weakref
from collections.abc import MutableMapping
from typing import Any

from google.genai import types
from mcp import types as mcp_types
from mcp.server.mcpserver import Context, MCPServer

from adk_runtime.artifacts.memory import InMemoryArtifactService
from adk_runtime.core.base_agent import BaseAgent
from adk_runtime.core.runner_factory import NestedRunner, RunnerFactory
from adk_runtime.errors import InputValidationError, SessionNotFoundError
from adk_runtime.features import FeatureName, is_feature_enabled
from adk_runtime.memory.in_memory import InMemoryMemoryService
from adk_runtime.runtime.runner import nested_runner
from adk_runtime.sessions import GetSessionConfig, InMemorySessionService

__all__ = ["to_mcp_server"]

MCP_USER_ID = "mcp_user"
"""The user id the served agent's sessions belong to."""

_BLOB_URI = "resource://adk-agent/inline-data"


def part_to_mcp(part: types.Part) -> mcp_types.ContentBlock | None:
    """One part of a reply as MCP content; None for what has no MCP form (a function call)."""
    if part.text:
        return mcp_types.TextContent(type="text", text=part.text)
    blob = part.inline_data
    if blob is None or blob.data is None:
        return None
    data = base64.b64encode(blob.data).decode("ascii")
    mime = blob.mime_type or "application/octet-stream"
    if mime.startswith("image/"):
        return mcp_types.ImageContent(type="image", data=data, mime_type=mime)
    if mime.startswith("audio/"):
        return mcp_types.AudioContent(type="audio", data=data, mime_type=mime)
    resource = mcp_types.BlobResourceContents(uri=_BLOB_URI, blob=data, mime_type=mime)
    return mcp_types.EmbeddedResource(type="resource", resource=resource)


def _connection_of(ctx: Context[Any]) -> object:
    """What identifies the MCP connection behind ``ctx``.

    The SDK makes a ``ServerSession`` per request and keeps its connection on it privately:
    one object for a whole stateful connection, a new one per request in the stateless
    protocol (where nothing identifies a client across requests). Without that attribute the
    per-request session stands in: never something shared by every connection.
    """
    session = ctx.session
    return getattr(session, "_connection", session)


async def _session_for(
    runner: NestedRunner,
    session_id: str | None,
    connection: object | None,
    sessions: MutableMapping[object, str] | None,
) -> str:
    """The id of the session this call continues (or of a new one; see the module docstring).

    Raises:
        SessionNotFoundError: ``session_id`` names no session of the served app.
    """
    if session_id is not None:
        found = await runner.session_service.get_session(
            app_name=runner.app_name,
            user_id=MCP_USER_ID,
            session_id=session_id,
            config=GetSessionConfig(num_recent_events=0),
        )
        if found is None:
            raise SessionNotFoundError(
                f"No conversation {session_id!r}: leave session_id out to start one."
            )
    elif sessions is not None and connection is not None:
        session_id = sessions.get(connection)
    if session_id is None:
        session = await runner.session_service.create_session(
            app_name=runner.app_name, user_id=MCP_USER_ID
        )
        session_id = session.id
    if sessions is not None and connection is not None:
        sessions[connection] = session_id
    return session_id


async def run_agent(
    runner: NestedRunner,
    request: str,
    ctx: Context[Any] | None = None,
    sessions: MutableMapping[object, str] | None = None,
    session_id: str | None = None,
) -> mcp_types.CallToolResult:
    """Run one turn of the agent on ``request``: its final reply as MCP content.

    The result's ``_meta["session_id"]`` names the conversation. With ``ctx``, intermediate
    text is reported as progress, and with ``sessions`` too the connection's conversation is
    continued (see the module docstring).
    """
    connection = _connection_of(ctx) if ctx is not None else None
    session_id = await _session_for(runner, session_id, connection, sessions)
    message = types.Content(role="user", parts=[types.Part(text=request)])
    reply: list[mcp_types.ContentBlock] = []
    async for event in runner.run_async(
        user_id=MCP_USER_ID, session_id=session_id, new_message=message
    ):
        parts = event.content.parts if event.content else None
        if not parts:
            continue
        if event.is_final_response():
            reply += [block for block in map(part_to_mcp, parts) if block is not None]
        elif ctx is not None:
            text = "".join(part.text or "" for part in parts)
            if text:
                await ctx.report_progress(progress=0.0, message=text)
    return mcp_types.CallToolResult(content=reply, _meta={"session_id": session_id})


def to_mcp_server(
    agent: BaseAgent,
    *,
    name: str | None = None,
    instructions: str | None = None,
    runner: NestedRunner | None = None,
    runner_factory: RunnerFactory | None = None,
) -> MCPServer[Any]:
    """Serve ``agent`` over MCP: a server with one tool, named after it, that runs it.

    Run it on the transport the host uses: ``server.run(transport="stdio")`` for a local
    host, ``server.run(transport="streamable-http")`` for one over the network.

    Args:
        agent: The agent to serve.
        name: The server's and the tool's name (default: the agent's name).
        instructions: Instructions the MCP host may show its model.
        runner: The Runner to run the agent with (e.g. on a durable store); default: one on
            in-memory stores, made by ``runner_factory``.
        runner_factory: Makes that default Runner (default: a ``Runner``).

    Returns:
        The MCP server (``mcp.server.mcpserver.MCPServer``).

    Raises:
        RuntimeError: The ``MCP_AGENT_SERVER`` feature switch is off.
    """
    if not is_feature_enabled(FeatureName.MCP_AGENT_SERVER):
        raise RuntimeError(
            "Feature MCP_AGENT_SERVER is not enabled: turn it on with override_feature_enabled("
            "FeatureName.MCP_AGENT_SERVER, True) or ADK_ENABLE_MCP_AGENT_SERVER=1."
        )
    tool_name = name or agent.name or "adk_agent"
    server: MCPServer[Any] = MCPServer(name=tool_name, instructions=instructions)
    used = runner or (runner_factory or nested_runner)(
        app_name=agent.name or "adk_agent",
        agent=agent,
        session_service=InMemorySessionService(),
        artifact_service=InMemoryArtifactService(),
        memory_service=InMemoryMemoryService(),
    )
    # A connection's entry goes when the connection is collected.
    sessions: MutableMapping[object, str] = weakref.WeakKeyDictionary()

    async def call_agent(
        request: str, ctx: Context[Any], session_id: str | None = None
    ) -> mcp_types.CallToolResult:
        """Ask the agent; ``session_id`` continues that conversation (see ``_meta``)."""
        try:
            return await run_agent(used, request, ctx, sessions, session_id)
        except (SessionNotFoundError, InputValidationError) as exc:  # the caller's to mend
            text = mcp_types.TextContent(type="text", text=str(exc))
            return mcp_types.CallToolResult(content=[text], is_error=True)

    server.add_tool(
        call_agent,
        name=tool_name,
        description=agent.description or f"Run the {tool_name} agent.",
        structured_output=False,
    )
    return server
