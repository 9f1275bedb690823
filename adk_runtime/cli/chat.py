"""``adk-runtime chat``: talk to any agent in the terminal, resuming its session."""

from __future__ import annotations

import click

from adk_runtime.cli._chat import (
    console,
    converse,
    ensure_sqlite_dir,
    open_or_resume,
    print_history,
    run_chat,
)
from adk_runtime.cli._common import (
    DEFAULT_USER,
    agent_option,
    artifact_url_option,
    load_agent,
    runner_root,
    session_url_option,
    show_url,
    user_option,
)
from adk_runtime.cli._services import stores
from adk_runtime.runners import Runner

DEFAULT_CHAT_URL = "sqlite+aiosqlite:///.adk_runtime/sessions.db"


@click.command()
@agent_option()
@session_url_option("--session-url", "--url", default=DEFAULT_CHAT_URL)
@artifact_url_option()
@click.option("--app", "app_name", default=None, help="App name (default: the agent's name).")
@user_option(default=DEFAULT_USER)
@click.option("--session", "session_id", default=None, help="Session id (default: the latest).")
def chat(
    agent_spec: str,
    session_url: str,
    artifact_url: str | None,
    app_name: str | None,
    user_id: str,
    session_id: str | None,
) -> None:
    """Chat with an agent; lines come from the terminal (or stdin), replies stream in."""
    agent = load_agent(agent_spec)
    ensure_sqlite_dir(session_url)

    async def go() -> int:
        async with stores(session_url, artifact_url) as (service, artifacts):
            runner = Runner(
                **runner_root(agent, app_name),
                session_service=service,
                artifact_service=artifacts,
            )
            session, resumed = await open_or_resume(service, runner.app_name, user_id, session_id)
            if resumed:
                print_history(session)
            else:
                console.print(
                    f"New session [bold]{session.id}[/] of user {user_id} in app "
                    f"{runner.app_name}, stored in {show_url(session_url)} (type 'exit' or "
                    "Ctrl-D to leave)."
                )
            async with runner:  # closes the agent's toolsets (MCP servers) at the end
                return await converse(runner, session)

    run_chat(go())
