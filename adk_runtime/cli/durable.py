"""``adk-runtime sessions interrupted|fork`` and ``adk-runtime resume``: durable execution.

``sessions interrupted`` lists the invocations a failure or a crash left unfinished;
``resume`` finishes them (one, or every one of the app / user / session) with the agent;
``sessions fork`` copies a session up to an event into a new one.
"""

from __future__ import annotations

import json

import click
from rich.console import Console
from rich.table import Table

from adk_runtime.cli._common import (
    agent_option,
    artifact_url_option,
    load_agent,
    run_async,
    runner_root,
    session_url_option,
    user_option,
)
from adk_runtime.cli._services import artifact_service_for, stores
from adk_runtime.errors import InputValidationError
from adk_runtime.runners import Runner
from adk_runtime.sessions import session_service_from_url
from adk_runtime.sessions.invocations import OpenInvocation

__all__ = ["fork_command", "interrupted_command", "resume"]

console = Console()
_app_option = click.option("--app", "app_name", required=True, help="Application name.")
_session_option = click.option(
    "--session", "session_id", default=None, metavar="SESSION", help="Only this session."
)


@click.command("interrupted")
@session_url_option()
@_app_option
@user_option()
@_session_option
@click.option("--all", "include_running", is_flag=True, help="Also list running invocations.")
@click.option("--json", "as_json", is_flag=True, help="Print them as JSON.")
def interrupted_command(
    session_url: str,
    app_name: str,
    user_id: str | None,
    session_id: str | None,
    include_running: bool,
    as_json: bool,
) -> None:
    """List invocations that started and did not finish (failed or crashed), oldest first."""

    async def go() -> list[OpenInvocation]:
        async with session_service_from_url(session_url) as service:
            return await service.list_interrupted_invocations(
                app_name=app_name,
                user_id=user_id,
                session_id=session_id,
                include_running=include_running,
            )

    found = run_async(go())
    if as_json:
        click.echo(json.dumps([item.to_json() for item in found], ensure_ascii=False))
        return
    table = Table(title=f"interrupted invocations of {app_name}")
    for column in ("invocation", "session", "user", "status"):
        table.add_column(column, overflow="fold")
    for item in found:
        table.add_row(item.invocation_id, item.session_id, item.user_id, item.status)
    console.print(table)
    console.print(f"{len(found)} invocation(s)")


@click.command("fork")
@click.argument("session_id")
@session_url_option()
@artifact_url_option("Artifact store (its session artifacts follow; default: as for serve).")
@_app_option
@user_option(required=True)
@click.option("--new-id", "new_session_id", default=None, help="The new session's id.")
@click.option("--at-event", "at_event_id", default=None, help="The last event to copy.")
def fork_command(
    session_id: str,
    session_url: str,
    artifact_url: str | None,
    app_name: str,
    user_id: str,
    new_session_id: str | None,
    at_event_id: str | None,
) -> None:
    """Copy a session (up to an event) and its artifacts into a new session; print the new id."""

    async def go() -> tuple[str, int]:
        async with stores(session_url, artifact_url) as (service, artifacts):
            forked = await service.fork_session(
                app_name=app_name,
                user_id=user_id,
                session_id=session_id,
                new_session_id=new_session_id,
                at_event_id=at_event_id,
                artifact_service=artifacts,
            )
            return forked.id, forked.revision

    new_id, events = run_async(go())
    click.echo(new_id)
    click.echo(f"forked {session_id} into {new_id} ({events} event(s))", err=True)


@click.command()
@agent_option()
@session_url_option("--session-url", "--url")
@artifact_url_option("Artifact store (default: as for serve).")
@click.option("--app", "app_name", default=None, help="App name (default: the agent's name).")
@user_option()
@_session_option
@click.option("--invocation", "invocation_id", default=None, help="Only this invocation.")
def resume(
    agent_spec: str,
    session_url: str,
    artifact_url: str | None,
    app_name: str | None,
    user_id: str | None,
    session_id: str | None,
    invocation_id: str | None,
) -> None:
    """Finish interrupted invocations with the agent (all of the app, a user's, a session's)."""
    agent = load_agent(agent_spec)

    async def go() -> int:
        async with session_service_from_url(session_url) as service:
            runner = Runner(
                **runner_root(agent, app_name),
                session_service=service,
                artifact_service=artifact_service_for(artifact_url, session_url),
            )
            if invocation_id is None:
                return await _resume_all(runner, user_id, session_id)
            if user_id is None or session_id is None:
                raise InputValidationError("--invocation needs --user and --session.")
            async for event in runner.run_async(
                user_id=user_id, session_id=session_id, invocation_id=invocation_id
            ):
                if not event.partial:
                    click.echo(f"{event.author}: {_text(event.content)}")
            return 0

    if run_async(go()):
        raise click.ClickException("some invocations could not be resumed (see above).")


async def _resume_all(runner: Runner, user_id: str | None, session_id: str | None) -> int:
    """Resume every interrupted invocation in scope, one line each; return the failures."""
    failures = 0
    for item, error in await runner.resume_interrupted(user_id=user_id, session_id=session_id):
        outcome = "resumed" if error is None else f"failed: {type(error).__name__}: {error}"
        failures += error is not None
        click.echo(f"{item.invocation_id} (session {item.session_id}): {outcome}")
    return failures


def _text(content: object) -> str:
    parts = getattr(content, "parts", None) or []
    texts = [part.text for part in parts if getattr(part, "text", None)]
    return " ".join(texts) if texts else "(no text)"
