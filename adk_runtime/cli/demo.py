"""``adk-runtime demo``: the notes assistant on an embedded SQLite file; a second run resumes."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import click
from rich.markup import escape

from adk_runtime import demo as notes
from adk_runtime._url_registry import url_scheme
from adk_runtime.agents import LlmAgent
from adk_runtime.artifacts import BaseArtifactService
from adk_runtime.cli._chat import (
    console,
    converse,
    open_or_resume,
    print_history,
    print_state,
    run_chat,
)
from adk_runtime.cli._common import (
    artifact_url_option,
    ensure_sqlite_dir,
    session_url_option,
    show_url,
)
from adk_runtime.cli._services import stores
from adk_runtime.errors import ConfigurationError
from adk_runtime.runners import Runner

DEMO_URL = "sqlite+aiosqlite:///.adk_runtime/demo.db"
DEMO_USER = "demo"


@click.command()
@session_url_option("--session-url", "--url", default=DEMO_URL)
@artifact_url_option()
@click.option("--session", "session_id", default="demo", show_default=True, help="Session id.")
@click.option(
    "--model",
    default=None,
    metavar="NAME",
    help="Model, e.g. gemini-2.5-flash (needs GOOGLE_API_KEY); default: the offline demo model.",
)
def demo(session_url: str, artifact_url: str | None, session_id: str, model: str | None) -> None:
    """Run the notes assistant: scripted when stdin is not a terminal, a chat when it is."""
    agent = notes.build_agent(model) if model else notes.root_agent
    _check_model(agent)
    ensure_sqlite_dir(session_url)

    async def go() -> int:
        async with stores(session_url, artifact_url) as (service, artifacts):
            runner = Runner(
                app_name=notes.APP_NAME,
                agent=agent,
                session_service=service,
                artifact_service=artifacts,
            )
            session, resumed = await open_or_resume(service, notes.APP_NAME, DEMO_USER, session_id)
            if resumed:
                print_history(session)
                await _print_artifacts(artifacts, session.id)
            else:
                console.print(
                    f"[bold]New[/] session [bold]{escape(session.id)}[/] of user "
                    f"[bold]{DEMO_USER}[/] in app [bold]{notes.APP_NAME}[/], stored in "
                    f"{escape(show_url(session_url))}; run the demo again to see it resume."
                )
            script = None
            if not sys.stdin.isatty():
                script = notes.RESUME_SCRIPT if resumed else notes.FIRST_SCRIPT
            else:
                console.print(
                    "Say 'remember <fact>', 'todo <item>', 'done <n>', 'save' or 'list'; "
                    "'exit' or Ctrl-D to leave."
                )
            failures = await converse(runner, session, script)
            final = await service.get_session(
                app_name=notes.APP_NAME, user_id=DEMO_USER, session_id=session.id
            )
            assert final is not None
            console.rule()
            console.print(
                f"session {final.id}: revision {final.revision}, {len(final.events)} events "
                f"stored in {show_url(session_url)}",
                markup=False,
            )
            print_state(final)
            await _print_artifacts(artifacts, final.id)
            _print_where(session_url, final.id, artifact_url)
            return failures

    run_chat(go())


def _print_where(session_url: str, session_id: str, artifact_url: str | None) -> None:
    """The exact commands that show the demo's data (app, user and session named)."""
    if url_scheme(session_url) == "memory":
        console.print("\nThe sessions were in memory (memory://): nothing is kept after this run.")
        return
    exe = _executable()
    url = show_url(session_url)
    extra = f" --artifact-url {show_url(artifact_url)}" if artifact_url else ""
    console.print(
        f"\nApp [bold]{notes.APP_NAME}[/], user [bold]{DEMO_USER}[/], session "
        f"[bold]{escape(session_id)}[/]. Look at the data with:"
    )
    for line in (
        f"{exe} sessions list --url {url} --app {notes.APP_NAME}",
        f"{exe} sessions show {session_id} --url {url} --app {notes.APP_NAME} --user {DEMO_USER}",
        f"{exe} serve --agent adk_runtime.demo:root_agent --session-url {url}{extra}",
    ):
        console.print(f"  {line}", markup=False, soft_wrap=True)


def _executable() -> str:
    """How to call ``adk-runtime`` from here: by name if on PATH, else by its path."""
    found = shutil.which("adk-runtime")
    argv0 = Path(sys.argv[0])
    if argv0.name == "adk-runtime" and (found is None or Path(found).resolve() != argv0.resolve()):
        try:
            return str(argv0.resolve().relative_to(Path.cwd()))
        except ValueError:
            return str(argv0)
    return "adk-runtime"


async def _print_artifacts(artifacts: BaseArtifactService, session_id: str) -> None:
    """List the session's artifacts and their versions (what the agent saved so far)."""
    names = await artifacts.list_artifact_keys(
        app_name=notes.APP_NAME, user_id=DEMO_USER, session_id=session_id
    )
    for name in names:
        versions = await artifacts.list_versions(
            app_name=notes.APP_NAME, user_id=DEMO_USER, session_id=session_id, filename=name
        )
        console.print(f"[bold]artifact[/] {escape(name)}: versions {versions}")


_KEY_VARIABLES = ("GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI")


def _check_model(agent: LlmAgent) -> None:
    """Fail early, in one line, on a model name nobody serves or a Gemini without a key."""
    model = agent.canonical_model  # raises ConfigurationError for an unknown name
    if model.model.startswith("gemini") and not any(os.environ.get(v) for v in _KEY_VARIABLES):
        raise ConfigurationError(
            f"--model {model.model} needs a key: set GOOGLE_API_KEY (or GEMINI_API_KEY, or "
            "GOOGLE_GENAI_USE_VERTEXAI with a project), or leave --model out for the offline "
            "demo model."
        )
