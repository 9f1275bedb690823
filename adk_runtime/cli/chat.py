"""``adk-runtime chat``: talk to any agent in the terminal, resuming its session."""

from __future__ import annotations

import click

from adk_runtime.cli._chat import chat_with
from adk_runtime.cli._common import (
    DEFAULT_CHAT_URL,
    DEFAULT_USER,
    agent_option,
    artifact_url_option,
    load_agent,
    session_url_option,
    user_option,
)


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
    chat_with(
        load_agent(agent_spec),
        session_url=session_url,
        artifact_url=artifact_url,
        app_name=app_name,
        user_id=user_id,
        session_id=session_id,
    )
