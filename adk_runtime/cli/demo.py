"""``adk-runtime demo``: the notes assistant on an embedded SQLite file; a second run resumes."""

from __future__ import annotations

import sys

import click

from adk_runtime import demo as notes
from adk_runtime.cli import main
from adk_runtime.cli._chat import (
    console,
    converse,
    ensure_sqlite_dir,
    open_or_resume,
    print_history,
    print_state,
)
from adk_runtime.cli._common import ARTIFACT_URL_ENV, run_async, session_url_option, show_url
from adk_runtime.cli._services import artifact_service_for
from adk_runtime.errors import ConfigurationError
from adk_runtime.runners import Runner
from adk_runtime.sessions import session_service_from_url

DEMO_URL = "sqlite+aiosqlite:///.adk_runtime/demo.db"
DEMO_USER = "demo"


@main.command()
@session_url_option("--session-url", "--url", default=DEMO_URL)
@click.option(
    "--artifact-url", envvar=ARTIFACT_URL_ENV, default=None, metavar="URL", help="Artifacts."
)
@click.option("--session", "session_id", default="demo", show_default=True, help="Session id.")
@click.option("--model", default=None, help="Model name (default: the offline demo model).")
def demo(session_url: str, artifact_url: str | None, session_id: str, model: str | None) -> None:
    """Run the notes assistant: scripted when stdin is not a terminal, a chat when it is."""
    if model is not None:
        raise ConfigurationError(
            f"--model {model!r}: this installation has no model support yet; "
            "the demo runs on its offline agent (leave --model out)."
        )
    ensure_sqlite_dir(session_url)

    async def go() -> None:
        async with session_service_from_url(session_url) as service:
            runner = Runner(
                app_name=notes.APP_NAME,
                agent=notes.root_agent,
                session_service=service,
                artifact_service=artifact_service_for(artifact_url),
            )
            session, resumed = await open_or_resume(service, notes.APP_NAME, DEMO_USER, session_id)
            if resumed:
                print_history(session)
            else:
                console.print(
                    f"[bold]New[/] session [bold]{session.id}[/] in {show_url(session_url)}; "
                    "run the demo again to see it resume."
                )
            script = None
            if not sys.stdin.isatty():
                script = notes.RESUME_SCRIPT if resumed else notes.FIRST_SCRIPT
            else:
                console.print(
                    "Say 'remember <fact>', 'todo <item>', 'done <n>', 'save' or 'list'; "
                    "'exit' or Ctrl-D to leave."
                )
            await converse(runner, session, script)
            final = await service.get_session(
                app_name=notes.APP_NAME, user_id=DEMO_USER, session_id=session.id
            )
            assert final is not None
            console.rule()
            console.print(
                f"session {final.id}: revision {final.revision}, {len(final.events)} events "
                f"stored in {show_url(session_url)}"
            )
            print_state(final)

    run_async(go())
