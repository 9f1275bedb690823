"""``adk-runtime mcp``: serve an agent over MCP (stdio or streamable HTTP), sessions in a store."""

from __future__ import annotations

import socket
from typing import Any

import click

from adk_runtime.apps import App
from adk_runtime.cli._common import (
    DEFAULT_CHAT_URL,
    agent_option,
    artifact_url_option,
    ensure_sqlite_dir,
    load_agent,
    run_async,
    runner_root,
    session_url_option,
)
from adk_runtime.cli._listen import bind, url_host
from adk_runtime.cli._services import stores
from adk_runtime.errors import ConfigurationError
from adk_runtime.runners import Runner

__all__ = ["mcp"]


@click.command("mcp")
@agent_option()
@session_url_option("--session-url", "--url", default=DEFAULT_CHAT_URL)
@artifact_url_option()
@click.option("--app", "app_name", default=None, help="App name (default: the agent's name).")
@click.option(
    "--transport",
    type=click.Choice(["stdio", "streamable-http"]),
    default="stdio",
    show_default=True,
    help="stdio for a host that starts this command; streamable-http to listen on a port.",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface (HTTP only).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@click.option("--name", default=None, help="The MCP server and tool name (default: the agent's).")
def mcp(
    agent_spec: str,
    session_url: str,
    artifact_url: str | None,
    app_name: str | None,
    transport: str,
    host: str,
    port: int,
    name: str | None,
) -> None:
    """Serve an agent over MCP: one tool that runs it, its turns committed to the store.

    An MCP host (an IDE, a coding assistant) starts ``adk-runtime mcp --agent
    my_app.agent:root_agent`` and talks to it over stdin/stdout; with ``--transport
    streamable-http`` it listens on ``http://HOST:PORT/mcp``.
    """
    try:
        from adk_runtime.tools.mcp_tool import to_mcp_server
    except ConfigurationError as exc:  # the mcp extra is missing
        raise click.ClickException(str(exc)) from None
    loaded = load_agent(agent_spec)
    agent = loaded.root_agent if isinstance(loaded, App) else loaded
    if agent is None:
        raise click.ClickException(f"{agent_spec} is an App without a root agent: give it one.")
    ensure_sqlite_dir(session_url)
    listener = None if transport == "stdio" else bind(host, port)

    async def go() -> None:
        async with stores(session_url, artifact_url) as (service, artifacts):
            runner = Runner(
                **runner_root(loaded, app_name), session_service=service, artifact_service=artifacts
            )
            server = to_mcp_server(agent, name=name, runner=runner)
            async with runner:  # closes the agent's own toolsets at the end
                if listener is None:
                    await server.run_stdio_async()
                else:
                    await _serve_http(server, host, listener)

    run_async(go())


async def _serve_http(server: Any, host: str, listener: socket.socket) -> None:
    """Serve ``server``'s streamable HTTP app on the bound ``listener`` (as the SDK would)."""
    import uvicorn

    app = server.streamable_http_app(host=host)
    config = uvicorn.Config(app, log_level=server.settings.log_level.lower())
    where = f"http://{url_host(host)}:{listener.getsockname()[1]}/mcp"
    click.echo(f"serving MCP on {where}", err=True)
    await uvicorn.Server(config).serve(sockets=[listener])
