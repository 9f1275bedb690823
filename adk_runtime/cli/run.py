"""``adk-runtime run AGENT [QUERY]``: google-adk's ``adk run``, on a durable session store."""

from __future__ import annotations

import click

from adk_runtime.cli._chat import chat_with
from adk_runtime.cli._common import (
    DEFAULT_CHAT_URL,
    DEFAULT_USER,
    artifact_url_option,
    load_agent,
    session_url_option,
    user_option,
)


@click.command()
@click.argument("agent_spec", metavar="AGENT")
@click.argument("query", required=False)
@session_url_option("--session-url", "--url", default=DEFAULT_CHAT_URL)
@artifact_url_option()
@click.option("--app", "app_name", default=None, help="App name (default: the agent's name).")
@user_option(default=DEFAULT_USER)
@click.option("--session", "session_id", default=None, help="Session id (default: the latest).")
def run(
    agent_spec: str,
    query: str | None,
    session_url: str,
    artifact_url: str | None,
    app_name: str | None,
    user_id: str,
    session_id: str | None,
) -> None:
    """Run an agent in the terminal: AGENT is its folder (or module:attr).

    With QUERY, send that one message and exit; without, chat (lines from the terminal or
    stdin). The user's latest session is resumed unless --session names one.
    """
    chat_with(
        load_agent(agent_spec),
        session_url=session_url,
        artifact_url=artifact_url,
        app_name=app_name,
        user_id=user_id,
        session_id=session_id,
        script=None if query is None else [query],
    )
