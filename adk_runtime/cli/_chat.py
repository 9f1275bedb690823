"""The conversation loop shared by ``chat`` and ``demo``: resume, show history, stream turns."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import AsyncIterator, Coroutine, Iterable
from contextlib import aclosing
from typing import Any

import click
from google.genai import types
from rich.console import Console
from rich.markup import escape
from rich.text import Text

from adk_runtime.agents import BaseAgent, RunConfig, StreamingMode
from adk_runtime.apps import App
from adk_runtime.cli._common import (
    ensure_sqlite_dir,
    one_line,
    run_async,
    runner_root,
    show_url,
)
from adk_runtime.cli._input import LineReader
from adk_runtime.cli._services import stores
from adk_runtime.errors import AdkRuntimeError
from adk_runtime.events import Event
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService, Session

__all__ = [
    "chat_with",
    "console",
    "converse",
    "interrupted",
    "open_or_resume",
    "print_history",
]

console = Console(highlight=False, soft_wrap=True)
"""The chat's and the demo's output: never hard-wrapped (piped, a JSON line stays one line)."""
HISTORY_SHOWN = 10


async def open_or_resume(
    service: BaseSessionService, app_name: str, user_id: str, session_id: str | None
) -> tuple[Session, bool]:
    """Return the session to talk in and whether it existed.

    With ``session_id``: that session (created if missing). Without: the user's most recently
    updated session in the app, or a new one.
    """
    if session_id is None:
        page = await service.list_sessions(app_name=app_name, user_id=user_id, page_size=1)
        if page.sessions:
            session_id = page.sessions[0].id
    if session_id is not None:
        found = await service.get_session(app_name=app_name, user_id=user_id, session_id=session_id)
        if found is not None:
            return found, True
    created = await service.create_session(
        app_name=app_name, user_id=user_id, session_id=session_id
    )
    return created, False


def _parts_text(event: Event) -> list[tuple[str, str]]:
    """(style, text) lines for an event's parts."""
    out: list[tuple[str, str]] = []
    for part in (event.content.parts or []) if event.content else []:
        if part.text:
            out.append(("", part.text))
        elif part.function_call:
            args = json.dumps(part.function_call.args or {}, ensure_ascii=False)
            out.append(("dim", f"→ {part.function_call.name}({args})"))
        elif part.function_response:
            response = json.dumps(part.function_response.response or {}, ensure_ascii=False)
            out.append(("dim", f"← {part.function_response.name}: {response}"))
    return out


def print_event(event: Event) -> None:
    """Print a committed event: who said it and what."""
    who = "you  " if event.author == "user" else "agent"
    for style, text in _parts_text(event):
        if style:
            console.print(f"      {text}", style=style, markup=False)
        else:
            console.print(f"{who} > {text}", markup=False)


def print_history(session: Session) -> None:
    """Show what a resumed session holds: its last turns and its state."""
    events = session.events
    console.print(
        f"[bold green]Resumed[/] session [bold]{escape(session.id)}[/]: revision "
        f"{session.revision}, {len(events)} event(s) found in storage."
    )
    if len(events) > HISTORY_SHOWN:
        console.print(f"[dim]… {len(events) - HISTORY_SHOWN} earlier event(s)[/]")
    for event in events[-HISTORY_SHOWN:]:
        print_event(event)
    print_state(session)
    console.rule()


def print_state(session: Session) -> None:
    """Print the session's merged state."""
    state = json.dumps(session.state, ensure_ascii=False, default=str)
    console.print(Text.assemble(("state", "bold"), " ", state), highlight=False)


async def _lines(script: Iterable[str] | None) -> AsyncIterator[str]:
    if script is not None:
        for line in script:
            console.print(f"you   > {line}", markup=False)
            yield line
        return
    interactive = sys.stdin.isatty()
    reader = LineReader(sys.stdin.fileno())
    while True:
        if interactive:
            console.print("you   > ", end="")
        read = await reader.readline()
        if read is None:
            if interactive:
                console.print()  # Ctrl-D: leave the prompt's line before the shell's prompt
            return
        if read.strip() in {"exit", "quit", "/exit", "/quit"}:
            return
        if read.strip():
            if not interactive:
                console.print(f"you   > {read}", markup=False)
            yield read


_SILENT = logging.NullHandler()


async def converse(runner: Runner, session: Session, script: Iterable[str] | None = None) -> int:
    """Talk: each line (from ``script``, else stdin) is one invocation, streamed as it runs.

    A turn that fails is reported in one line on stderr (what it committed before stays) and
    the conversation goes on.

    Returns:
        The number of turns that failed.
    """
    run_config = RunConfig(streaming_mode=StreamingMode.SSE)
    failures = 0
    # The chat reports a failed turn itself, in one line: the operators' log line for it
    # (adk_runtime.turns) goes to the application's handlers only, never to the terminal.
    logging.getLogger("adk_runtime.turns").addHandler(_SILENT)
    async for line in _lines(script):
        message = types.Content(role="user", parts=[types.Part(text=line)])
        streamed = False
        agen = runner.run_async(
            user_id=session.user_id,
            session_id=session.id,
            new_message=message,
            run_config=run_config,
        )
        try:
            async with aclosing(agen) as events:
                async for event in events:
                    streamed = _show(event, streamed)
        except Exception as exc:  # the turn's failure: one line, what it committed stays
            failures += 1
            if streamed:
                console.print()
            what = str(exc)
            if not isinstance(exc, AdkRuntimeError):
                what = f"The agent failed: {type(exc).__name__}: {exc}"
            click.echo(
                one_line(f"Error: {what} (what it committed before stays; the chat goes on)"),
                err=True,
            )
    return failures


def interrupted() -> SystemExit:
    """Say that Ctrl-C ended the chat and return the exit to raise (status 130)."""
    console.print()
    console.print("[dim]Interrupted; everything committed so far is stored.[/]")
    return SystemExit(130)


def run_chat(conversation: Coroutine[Any, Any, int]) -> None:
    """Run a conversation that returns its count of failed turns, from a click command.

    Ctrl-C ends it with :func:`interrupted`; a failed turn makes a script or a pipe (stdin not
    a terminal) exit with status 1.
    """
    try:
        failures = run_async(conversation)
    except KeyboardInterrupt:
        raise interrupted() from None
    if failures and not sys.stdin.isatty():
        raise SystemExit(1)  # a script or pipe learns that a turn failed


def _show(event: Event, streamed: bool) -> bool:
    """Print an event as it arrives; returns whether partial text is on the current line."""
    if event.partial:
        text = "".join(p.text or "" for p in (event.content.parts or [])) if event.content else ""
        if text:
            if not streamed:
                console.print("agent > ", end="")
            console.print(text, end="", markup=False)
            return True
        return streamed
    if streamed:
        console.print()
        if not any(p.function_call or p.function_response for p in _parts(event)):
            return False
    print_event(event)
    return False


def _parts(event: Event) -> list[types.Part]:
    return list(event.content.parts or []) if event.content else []


def chat_with(
    agent: BaseAgent | App,
    *,
    session_url: str,
    artifact_url: str | None,
    app_name: str | None,
    user_id: str,
    session_id: str | None,
    script: Iterable[str] | None = None,
) -> None:
    """Chat (``chat`` and ``run``): open or resume the session, then :func:`converse`."""
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
                    f"New session [bold]{escape(session.id)}[/] of user {escape(user_id)} in app "
                    f"{escape(runner.app_name)}, stored in {escape(show_url(session_url))} (type "
                    "'exit' or Ctrl-D to leave)."
                )
            async with runner:  # closes the agent's toolsets (MCP servers) at the end
                return await converse(runner, session, script)

    run_chat(go())
