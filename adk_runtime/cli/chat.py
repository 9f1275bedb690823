"""``adk-runtime chat``: talk to any agent in the terminal, resuming its session."""

from __future__ import annotations

import sys

import click

from adk_runtime.cli._chat import (
    console,
    converse,
    ensure_sqlite_dir,
    interrupted,
    open_or_resume,
    print_history,
)
from adk_runtime.cli._common import (
    ARTIFACT_URL_ENV,
    DEFAULT_USER,
    agent_option,
    load_agent,
    run_async,
    runner_root,
    session_url_option,
    show_url,
    user_option,
)
from adk_runtime.cli._services import artifact_service_for
from adk_runtime.runners import Runner
from adk_runtime.sessions import session_service_from_url

DEFAULT_CHAT_URL = "sqlite+aiosqlite:///.adk_runtime/sessions.db"


@click.command()
@agent_option()
@session_url_option("--session-url", "--url", default=DEFAULT_CHAT_URL)
@click.option(
    "--artifact-url",
    envvar=ARTIFACT_URL_ENV,
    default=None,
    metavar="URL",
    help="Artifact store (default: the session database if SQL, .adk_runtime/artifacts for "
    "Redis, in memory for memory://).",
)
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
        async with (
            session_service_from_url(session_url) as service,
            artifact_service_for(artifact_url, session_url) as artifacts,
        ):
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

    try:
        failures = run_async(go())
    except KeyboardInterrupt:
        raise interrupted() from None
    if failures and not sys.stdin.isatty():
        raise SystemExit(1)  # a script or pipe learns that a turn failed
