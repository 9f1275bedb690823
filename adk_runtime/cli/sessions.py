"""``adk-runtime sessions list|show|delete|prune|export|import``: inspect and move sessions.

Output is never hard-wrapped (a JSON line piped to a file stays one line), and stored data
(ids, text, state) is printed as text, never read as rich markup.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from adk_runtime import codec
from adk_runtime.cli._common import (
    artifact_url_option,
    one_line,
    run_async,
    session_url_option,
    user_option,
)
from adk_runtime.cli._progress import progress_bar
from adk_runtime.cli._services import stores
from adk_runtime.errors import AdkRuntimeError, SessionNotFoundError
from adk_runtime.events import Event
from adk_runtime.events._internal_metadata import public_event
from adk_runtime.sessions import (
    BaseSessionService,
    ListSessionsResponse,
    session_service_from_url,
    transfer,
)
from adk_runtime.sessions.retention import parse_idle_time

console = Console(soft_wrap=True)
_app_option = click.option(
    "--app",
    "app_name",
    required=True,
    help="Application name: the agent's name unless `serve`/`chat --app` chose another "
    "(the demo's is 'notes').",
)


@click.group()
def sessions() -> None:
    """Inspect, delete, prune, export and import sessions."""


def _when(ts: float) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


@sessions.command("list")
@session_url_option()
@_app_option
@user_option()
@click.option("--page-size", type=click.IntRange(1, 1000), default=None, help="Sessions per page.")
@click.option("--page-token", default=None, help="Token printed by the previous page.")
@click.option("--json", "as_json", is_flag=True, help="Print the page as JSON (camelCase).")
def list_command(
    session_url: str,
    app_name: str,
    user_id: str | None,
    page_size: int | None,
    page_token: str | None,
    as_json: bool,
) -> None:
    """List sessions, most recently updated first (ids are never shortened)."""

    async def go() -> ListSessionsResponse:
        async with session_service_from_url(session_url) as service:
            return await service.list_sessions(
                app_name=app_name, user_id=user_id, page_size=page_size, page_token=page_token
            )

    page = run_async(go())
    if as_json:
        click.echo(json.dumps(_page_json(page), ensure_ascii=False))
        return
    table = Table(title=f"sessions of {app_name}")
    table.add_column(
        "session", no_wrap=True, min_width=max((len(s.id) for s in page.sessions), default=7)
    )
    table.add_column("user", overflow="fold")
    table.add_column("rev", justify="right")
    table.add_column("updated", overflow="fold")
    table.add_column("state keys", justify="right")
    for s in page.sessions:
        table.add_row(
            Text(s.id),
            Text(s.user_id),
            str(s.revision),
            _when(s.last_update_time),
            str(len(s.state)),
        )
    console.print(table, soft_wrap=False)
    console.print(f"{len(page.sessions)} session(s)")
    if page.next_page_token:
        console.print(f"next page: --page-token {page.next_page_token}", markup=False)


def _page_json(page: ListSessionsResponse) -> dict[str, Any]:
    """A listing page as JSON: the sessions (without events) and the next page token."""
    sessions = [
        {
            "id": s.id,
            "appName": s.app_name,
            "userId": s.user_id,
            "revision": s.revision,
            "lastUpdateTime": s.last_update_time,
            "state": codec.encode_state(s.state),
        }
        for s in page.sessions
    ]
    return {"sessions": sessions, "nextPageToken": page.next_page_token}


async def _load(service: BaseSessionService, app_name: str, user_id: str, session_id: str) -> Any:
    session = await service.get_session(app_name=app_name, user_id=user_id, session_id=session_id)
    if session is None:
        raise SessionNotFoundError(
            f"No session {session_id!r} of user {user_id!r} in app {app_name!r}; "
            "see 'adk-runtime sessions list'."
        )
    return session


def event_summary(event: Event) -> str:
    """One line for an event: its text, function calls/responses and state changes."""
    bits: list[str] = []
    if event.content and event.content.parts:
        for part in event.content.parts:
            if part.text:
                bits.append(part.text)
            elif part.function_call:
                bits.append(f"call {part.function_call.name}({part.function_call.args or {}})")
            elif part.function_response:
                bits.append(f"{part.function_response.name} → {part.function_response.response}")
    if event.actions.state_delta:
        bits.append(f"[state {event.actions.state_delta}]")
    if event.actions.artifact_delta:
        bits.append(f"[artifacts {event.actions.artifact_delta}]")
    return " ".join(bits) or "(no content)"


@sessions.command("show")
@click.argument("session_id")
@session_url_option()
@_app_option
@user_option(required=True)
@click.option("--json", "as_json", is_flag=True, help="Print the session as JSON (camelCase).")
def show_command(
    session_id: str, session_url: str, app_name: str, user_id: str, as_json: bool
) -> None:
    """Show a session: its state and its events in commit order."""

    async def go() -> None:
        async with session_service_from_url(session_url) as service:
            session = await _load(service, app_name, user_id, session_id)
        if as_json:
            shown = session.model_copy(update={"events": [public_event(e) for e in session.events]})
            data = json.loads(
                shown.model_dump_json(by_alias=True, exclude_none=True, exclude={"state"})
            )
            data["state"] = codec.encode_state(session.state)
            click.echo(json.dumps(data, ensure_ascii=False))
            return
        console.print(
            f"[bold]session {escape(session.id)}[/] user {escape(session.user_id)} app "
            f"{escape(session.app_name)} revision {session.revision}, updated "
            f"{_when(session.last_update_time)}"
        )
        state = json.dumps(session.state, default=str, ensure_ascii=False)
        console.print(f"state: {state}", markup=False, highlight=False)
        table = Table()
        for column in ("#", "author", "event"):
            table.add_column(column)
        for number, event in enumerate(session.events, 1):
            table.add_row(str(number), Text(event.author), Text(event_summary(event)))
        console.print(table, soft_wrap=False)

    run_async(go())


@sessions.command("delete")
@click.argument("session_id")
@session_url_option()
@artifact_url_option("Artifact store whose session artifacts go too (default: as for serve).")
@_app_option
@user_option(required=True)
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
def delete_command(
    session_id: str,
    session_url: str,
    artifact_url: str | None,
    app_name: str,
    user_id: str,
    yes: bool,
) -> None:
    """Delete a session, its events and its artifacts (app and user state, user: artifacts stay).

    The artifacts go after the session delete commits, and also when the session is already
    gone (the command still fails then): a crash between leaves orphan artifacts, never a
    session whose files are gone, and running it again cleans them up.
    """

    async def go() -> None:
        async with stores(session_url, artifact_url) as (service, artifacts):
            try:
                await _load(service, app_name, user_id, session_id)
            except SessionNotFoundError:
                left = await artifacts.delete_session_artifacts(
                    app_name=app_name, user_id=user_id, session_id=session_id
                )
                if left:
                    console.print(
                        f"deleted {len(left)} artifact(s) left by session {session_id}",
                        markup=False,
                    )
                raise
            if not yes:
                click.confirm(
                    f"Delete session {session_id!r}, its events and its artifacts?", abort=True
                )
            await service.delete_session(
                app_name=app_name,
                user_id=user_id,
                session_id=session_id,
                artifact_service=artifacts,
            )
        console.print(f"deleted session {session_id}", markup=False)

    run_async(go())


@sessions.command("prune")
@session_url_option()
@_app_option
@user_option()
@click.option(
    "--idle-longer-than",
    "idle",
    required=True,
    help="Delete sessions not written for this long: 30d, 12h, 15m, 90s (units s m h d w).",
)
@click.option("--dry-run", is_flag=True, help="List what would be deleted; delete nothing.")
@click.option(
    "--batch-size",
    type=click.IntRange(1, 10_000),
    default=500,
    show_default=True,
    help="Sessions read per batch.",
)
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@artifact_url_option("Artifact store whose session artifacts go too (default: as for serve).")
def prune_command(
    session_url: str,
    artifact_url: str | None,
    app_name: str,
    user_id: str | None,
    idle: str,
    dry_run: bool,
    batch_size: int,
    yes: bool,
) -> None:
    """Delete sessions idle longer than a given time, and their artifacts (oldest first).

    A session a turn holds, or written again since it was found idle, is kept. App and user
    state and user: artifacts stay.
    """
    seconds = parse_idle_time(idle)
    whose = f"user {user_id!r}" if user_id is not None else "every user"
    if not (dry_run or yes):
        click.confirm(
            f"Delete the sessions of app {app_name!r} ({whose}) idle longer than {idle}?",
            abort=True,
        )

    async def go() -> None:
        async with stores(session_url, artifact_url) as (service, artifacts):
            result = await service.prune_sessions(
                app_name=app_name,
                user_id=user_id,
                idle_longer_than=seconds,
                dry_run=dry_run,
                batch_size=batch_size,
                artifact_service=artifacts,
            )
        for idle_session in result.sessions:
            console.print(
                f"{idle_session.user_id}\t{idle_session.session_id}\t"
                f"last written {_when(idle_session.last_update_time)}",
                markup=False,
                highlight=False,
            )
        verb = "would delete" if dry_run else "deleted"
        console.print(f"{verb} {len(result.sessions)} session(s) idle longer than {idle}")

    run_async(go())


@sessions.command("export")
@session_url_option()
@click.option("--app", "app_names", required=True, multiple=True, help="Application (repeatable).")
@user_option()
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True, allow_dash=True, path_type=Path),
    required=True,
    help="JSONL file to write ('-' for stdout).",
)
def export_command(
    session_url: str, app_names: tuple[str, ...], user_id: str | None, output: Path
) -> None:
    """Export sessions, events and app/user state as JSONL (docs/reference/storage-format.md)."""

    async def go() -> transfer.ImportCounts:
        total = transfer.ImportCounts()
        async with session_service_from_url(session_url) as service:
            keys = {
                app: await transfer.list_session_keys(service, app, user_id) for app in app_names
            }
            _refuse_empty(keys, user_id)
            with (
                click.open_file(str(output), "w", encoding="utf-8") as out,
                progress_bar("sessions") as progress,
            ):
                task = progress.add_task("exporting", total=sum(len(k) for k in keys.values()))
                out.write(transfer.header_line(app_names) + "\n")
                for app, app_keys in keys.items():
                    async for line in transfer.export_lines(service, app, app_keys, total):
                        out.write(line + "\n")
                        progress.update(task, completed=total.sessions)
                out.write(transfer.footer_line(total) + "\n")
        return total

    counts = run_async(go())
    Console(stderr=True).print(
        f"exported {counts.sessions} session(s), {counts.events} event(s), "
        f"{counts.app_states} app state(s), {counts.user_states} user state(s)"
    )


def _refuse_empty(keys: dict[str, list[Any]], user_id: str | None) -> None:
    """Fail, before any file is written, when a named app has no session to export."""
    empty = [app for app, app_keys in keys.items() if not app_keys]
    if empty:
        whose = f" of user {user_id!r}" if user_id else ""
        raise SessionNotFoundError(
            f"No sessions{whose} in app(s) {', '.join(map(repr, empty))}: nothing exported, no "
            "file written. Check the app name ('adk-runtime sessions list --app APP') and --url."
        )


@sessions.command("import")
@session_url_option()
@click.argument("input_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def import_command(session_url: str, input_file: Path) -> None:
    """Import a JSONL export: checked whole first, each session written whole or not at all.

    A refused file writes nothing; importing the same file again changes nothing.
    """
    counts = transfer.ImportCounts()

    async def go() -> None:
        async with session_service_from_url(session_url) as service:
            with progress_bar("records", extra="{task.fields[events]:,} events") as progress:
                task = progress.add_task("importing", total=None, events=0)

                def advance(done: transfer.ImportCounts) -> None:
                    progress.update(task, total=done.expected, advance=1, events=done.events)

                await transfer.import_file(service, input_file, counts, advance)

    try:
        run_async(go())
    except AdkRuntimeError as exc:
        if counts.line is None:
            raise
        raise click.ClickException(
            one_line(
                f"{exc} The import stopped at line {counts.line}: {_done(counts)} before it "
                "(each session whole); run the same import again to complete it."
            )
        ) from None
    console.print(f"imported {_done(counts)}")


def _done(counts: transfer.ImportCounts) -> str:
    return (
        f"{counts.sessions} session(s) ({counts.sessions_created} created, "
        f"{counts.sessions_skipped} already present), {counts.events} event(s) written, "
        f"{counts.app_states} app state(s), {counts.user_states} user state(s)"
    )
