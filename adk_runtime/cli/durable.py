"""``adk-runtime sessions interrupted|fork`` and ``adk-runtime resume``: durable execution.

``sessions interrupted`` lists the invocations a failure or a crash left unfinished, and those
a turn's lease still holds (a live turn, or a holder killed mid-turn whose lease has not run
out yet), with the seconds left; ``resume`` finishes them (one, or every one of the app / user /
session) with the agent, waiting a bounded time for held ones; ``sessions fork`` copies a
session up to an event into a new one.
"""

from __future__ import annotations

import asyncio
import json
import math

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

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
from adk_runtime.sessions import BaseSessionService, session_service_from_url
from adk_runtime.sessions.invocations import OpenInvocation

__all__ = ["fork_command", "interrupted_command", "resume"]

console = Console(soft_wrap=True)
_app_option = click.option("--app", "app_name", required=True, help="Application name.")
_session_option = click.option(
    "--session", "session_id", default=None, metavar="SESSION", help="Only this session."
)


@click.command("interrupted")
@session_url_option()
@_app_option
@user_option()
@_session_option
@click.option("--all", "_all", is_flag=True, hidden=True, help="Accepted; held ones are listed.")
@click.option("--json", "as_json", is_flag=True, help="Print them as JSON.")
def interrupted_command(
    session_url: str,
    app_name: str,
    user_id: str | None,
    session_id: str | None,
    _all: bool,
    as_json: bool,
) -> None:
    """List unfinished invocations (failed, crashed, or held by a lease), oldest first.

    One a turn's lease still holds is listed as held, with the seconds until the lease runs
    out: its turn is running, or its process died and it becomes resumable then.
    """

    async def go() -> list[OpenInvocation]:
        async with session_service_from_url(session_url) as service:
            return await _open_invocations(service, app_name, user_id, session_id)

    found = run_async(go())
    if as_json:
        click.echo(json.dumps([item.to_json() for item in found], ensure_ascii=False))
        return
    table = Table(title=f"unfinished invocations of {app_name}")
    for column in ("invocation", "session", "user", "status"):
        table.add_column(column, overflow="fold")
    for item in found:
        ids = (item.invocation_id, item.session_id, item.user_id)
        table.add_row(*map(Text, ids), _status(item))
    console.print(table, soft_wrap=False)
    console.print(f"{len(found)} invocation(s)")
    held = [item for item in found if not item.interrupted]
    if held:
        console.print(
            f"{len(held)} held by a turn's lease: its turn is running, or its process died and "
            f"the lease frees it in at most {_whole_seconds(max(i.held_for for i in held))} s; "
            "then 'adk-runtime resume' finishes it (and waits for it meanwhile)."
        )


async def _open_invocations(
    service: BaseSessionService,
    app_name: str,
    user_id: str | None,
    session_id: str | None,
    invocation_id: str | None = None,
) -> list[OpenInvocation]:
    """The unfinished invocations in scope, held ones included (one only with an id)."""
    found = await service.list_interrupted_invocations(
        app_name=app_name, user_id=user_id, session_id=session_id, include_running=True
    )
    return [item for item in found if invocation_id in (None, item.invocation_id)]


def _status(item: OpenInvocation) -> str:
    if item.interrupted:
        return item.status
    return f"held: lease frees in {_whole_seconds(item.held_for)} s"


def _whole_seconds(seconds: float) -> int:
    return max(1, math.ceil(seconds))


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
@click.option(
    "--wait",
    "wait_seconds",
    type=click.FloatRange(0, 3600),
    default=30.0,
    show_default=True,
    metavar="SECONDS",
    help="How long to wait for an invocation a turn's lease still holds (a holder killed "
    "mid-turn frees it when its lease runs out); 0: do not wait.",
)
def resume(
    agent_spec: str,
    session_url: str,
    artifact_url: str | None,
    app_name: str | None,
    user_id: str | None,
    session_id: str | None,
    invocation_id: str | None,
    wait_seconds: float,
) -> None:
    """Finish interrupted invocations with the agent (all of the app, a user's, a session's).

    One a turn's lease still holds is waited for (up to --wait seconds, with a line on stderr
    while waiting): its holder may have died, and it becomes resumable when the lease runs out.
    """
    agent = load_agent(agent_spec)
    if invocation_id is not None and (user_id is None or session_id is None):
        raise InputValidationError("--invocation needs --user and --session.")

    async def go() -> int:
        async with session_service_from_url(session_url) as service:
            runner = Runner(
                **runner_root(agent, app_name),
                session_service=service,
                artifact_service=artifact_service_for(artifact_url, session_url),
            )
            scope = (runner.app_name, user_id, session_id, invocation_id)
            held = await _wait_for_leases(service, scope, wait_seconds)
            if invocation_id is None:
                return await _resume_all(runner, user_id, session_id, held) + held
            if held:
                return held
            assert user_id is not None  # checked above
            assert session_id is not None
            async for event in runner.run_async(
                user_id=user_id, session_id=session_id, invocation_id=invocation_id
            ):
                if not event.partial:
                    click.echo(f"{event.author}: {_text(event.content)}")
            return 0

    if run_async(go()):
        raise click.ClickException("some invocations could not be resumed (see above).")


_Scope = tuple[str, str | None, str | None, str | None]
"""(app, user, session, invocation) to resume; None: any."""

_PROGRESS_EVERY = 5.0
"""Seconds between two lines while waiting for a held invocation."""


async def _wait_for_leases(service: BaseSessionService, scope: _Scope, wait: float) -> int:
    """Wait up to ``wait`` seconds until no invocation in scope is held by a lease.

    A line on stderr says what is waited for, and again every few seconds. Returns how many
    are still held at the end, each reported in one line saying when to retry.
    """
    loop = asyncio.get_running_loop()
    deadline, said = loop.time() + wait, -math.inf
    while True:
        held = [item for item in await _open_invocations(service, *scope) if not item.interrupted]
        if not held:
            return 0
        left = deadline - loop.time()
        if left <= 0:
            break
        if loop.time() - said >= _PROGRESS_EVERY:
            said = loop.time()
            for item in held:
                click.echo(
                    f"waiting for {item.invocation_id} (session {item.session_id}): a turn's "
                    f"lease holds it for {_whole_seconds(item.held_for)} s more (its turn is "
                    f"running, or its process died); waiting up to {_whole_seconds(left)} s",
                    err=True,
                )
        await asyncio.sleep(min(left, 0.5, max(min(item.held_for for item in held), 0.05)))
    for item in held:
        click.echo(
            f"{item.invocation_id} (session {item.session_id}): still held by a turn's lease, "
            f"which frees it in {_whole_seconds(item.held_for)} s unless its turn is alive; "
            "run resume again then",
            err=True,
        )
    return len(held)


async def _resume_all(
    runner: Runner, user_id: str | None, session_id: str | None, held: int
) -> int:
    """Resume every interrupted invocation in scope, one line each; return the failures.

    With none to resume and none ``held`` (reported already), one line on stderr says so.
    """
    failures = 0
    outcomes = await runner.resume_interrupted(user_id=user_id, session_id=session_id)
    for item, error in outcomes:
        outcome = "resumed" if error is None else f"failed: {type(error).__name__}: {error}"
        failures += error is not None
        click.echo(f"{item.invocation_id} (session {item.session_id}): {outcome}")
    if not outcomes and not held:
        whose = f" of user {user_id!r}" if user_id else ""
        whose += f" in session {session_id!r}" if session_id else ""
        click.echo(
            f"nothing to resume: no interrupted invocation{whose} in app {runner.app_name!r}",
            err=True,
        )
    return failures


def _text(content: object) -> str:
    parts = getattr(content, "parts", None) or []
    texts = [part.text for part in parts if getattr(part, "text", None)]
    return " ".join(texts) if texts else "(no text)"
