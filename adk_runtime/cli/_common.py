"""What every command shares: the error handler, configuration options, agent loading.

User mistakes (a bad URL, a missing agent module, a session that does not exist...) raise an
:class:`~adk_runtime.errors.AdkRuntimeError`; :class:`AdkGroup` turns any of them into one
line on stderr (``Error: …`` with what to do) and exit status 1, never a traceback.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from adk_runtime.errors import AdkRuntimeError, ConfigurationError, redact_url

if TYPE_CHECKING:  # imported when an agent is loaded: `db` commands start without them
    from adk_runtime.agents import BaseAgent
    from adk_runtime.apps import App

__all__ = [
    "SESSION_URL_ENV",
    "AdkGroup",
    "load_agent",
    "run_async",
    "runner_root",
    "session_url_option",
    "user_option",
]

SESSION_URL_ENV = "ADK_RUNTIME_SESSION_URL"
ARTIFACT_URL_ENV = "ADK_RUNTIME_ARTIFACT_URL"
MEMORY_URL_ENV = "ADK_RUNTIME_MEMORY_URL"
AUTH_TOKEN_ENV = "ADK_RUNTIME_AUTH_TOKEN"
DEFAULT_USER = "user"
DEFAULT_CHAT_URL = "sqlite+aiosqlite:///.adk_runtime/sessions.db"
"""The session store of ``chat``, ``run``, ``mcp``, ``web`` and ``api_server`` by default."""

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])


def one_line(message: str) -> str:
    """Collapse a message onto one line (the CLI prints every error as one line)."""
    return " ".join(message.split())


class AdkGroup(click.Group):
    """A click group whose commands report user mistakes as one clear line."""

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; translate adk_runtime and connection errors to one line."""
        try:
            return super().invoke(ctx)
        except AdkRuntimeError as exc:
            raise click.ClickException(one_line(str(exc))) from None
        except ConnectionError as exc:
            raise click.ClickException(
                one_line(f"Cannot reach the storage backend ({exc}). Is it running?")
            ) from None


def ensure_sqlite_dir(url: str) -> None:
    """Create the directory of a SQLite file URL, so the first use can create the file."""
    if not url.startswith("sqlite"):
        return
    _, _, path = url.partition(":///")
    if path and path != ":memory:" and not path.startswith("file:"):
        Path(path.split("?", 1)[0]).expanduser().parent.mkdir(parents=True, exist_ok=True)


def run_async(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion from a synchronous click command."""
    return asyncio.run(coro)


def session_url_option(
    *names: str, default: str | None = None, required: bool = True
) -> Callable[[F], F]:
    """The session store URL option (also read from ``ADK_RUNTIME_SESSION_URL``)."""
    flags = names or ("--url", "--session-url")
    extra: dict[str, Any] = {"default": default, "show_default": True} if default else {}
    return click.option(
        *flags,
        "session_url",
        envvar=SESSION_URL_ENV,
        show_envvar=True,
        required=required and default is None,
        metavar="URL",
        help="Session store: sqlite+aiosqlite:///file.db, postgresql+asyncpg://…, redis://…, "
        "spanner:///projects/P/instances/I/databases/D, memory://.",
        **extra,
    )


def agent_option() -> Callable[[F], F]:
    """The ``--agent MODULE:ATTR`` (or agent folder) option (see :func:`load_agent`)."""
    return click.option(
        "--agent",
        "agent_spec",
        required=True,
        metavar="MODULE:ATTR|FOLDER",
        help="The agent, a workflow, or an App (its root agent and plugins); or an agent "
        "folder (root_agent in its agent.py, as adk-runtime create makes).",
    )


ARTIFACT_URL_HELP = (
    "Artifact store (default: the session database if SQL or Spanner, "
    ".adk_runtime/artifacts for Redis, in memory for memory://)."
)


def artifact_url_option(help: str = ARTIFACT_URL_HELP) -> Callable[[F], F]:
    """The ``--artifact-url`` option (also read from ``ADK_RUNTIME_ARTIFACT_URL``)."""
    return click.option(
        "--artifact-url",
        envvar=ARTIFACT_URL_ENV,
        show_envvar=True,
        default=None,
        metavar="URL",
        help=help,
    )


def user_option(required: bool = False, default: str | None = None) -> Callable[[F], F]:
    """The ``--user`` option.

    A default is passed to click only when there is one: click treats an explicit
    ``default=None`` as a value given, and then no longer enforces ``required``.
    """
    extra: dict[str, Any] = {} if default is None else {"default": default}
    return click.option(
        "--user", "user_id", required=required, metavar="USER", help="User id.", **extra
    )


def load_agent(spec: str) -> BaseAgent | App:
    """Import the agent, workflow or App ``spec`` names.

    ``spec`` is ``module:attr`` (the current directory importable) or the path of an agent
    folder, google-adk's layouts (``root_agent`` in its ``agent.py``; its ``.env`` read; see
    :class:`~adk_runtime.cli.utils.agent_loader.AgentLoader`). A workflow node is returned as
    the agent that runs it (``Runner(node=...)``'s).

    Raises:
        ConfigurationError: The spec is malformed, the module cannot be imported, or the
            attribute is missing or not an agent.
    """
    if ":" not in spec and Path(spec).is_dir():
        return _load_folder(Path(spec).resolve())
    agent = _import_spec(spec)
    from adk_runtime._foreign import refuse_google_adk
    from adk_runtime.agents import BaseAgent
    from adk_runtime.apps import App
    from adk_runtime.workflow._base_node import BaseNode
    from adk_runtime.workflow._root import as_agent

    refuse_google_adk(f"--agent {spec!r}", agent=agent)
    if isinstance(agent, BaseNode):  # a workflow: it runs as the root agent
        agent = as_agent(agent)
    if not isinstance(agent, BaseAgent | App):
        raise ConfigurationError(
            f"{spec!r} is a {type(agent).__name__}, not an agent (an adk_runtime BaseAgent), "
            "a workflow node or an adk_runtime App."
        )
    return agent


def _load_folder(folder: Path) -> App:
    """The App of an agent folder: its own ``app``, or its ``root_agent`` in an App.

    That App is named after the folder: the app its sessions are stored under, as google-adk
    names it.
    """
    from adk_runtime.apps import App
    from adk_runtime.cli.utils.agent_loader import AgentLoader

    loaded = AgentLoader(folder.parent).load_agent(folder.name)
    if isinstance(loaded, App):
        return loaded
    try:
        return App(name=folder.name, root_agent=loaded)
    except ValueError as exc:
        raise ConfigurationError(f"Agent folder {folder}: {exc}") from None


def _import_spec(spec: str) -> object:
    """The object ``module:attr`` names (the current directory importable)."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ConfigurationError(
            f"--agent {spec!r} must be 'module:attribute', e.g. 'my_app.agent:root_agent', or "
            "an agent folder (adk-runtime create NAME makes one)."
        )
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise ConfigurationError(
            f"Cannot import agent module {module_name!r} ({exc}). Run from the directory that "
            "contains it or add it to PYTHONPATH."
        ) from None
    agent = module
    for part in attr.split("."):
        if not hasattr(agent, part):
            raise ConfigurationError(
                f"Module {module_name!r} has no attribute {attr!r}; name the agent object, "
                "e.g. 'my_app.agent:root_agent'."
            )
        agent = getattr(agent, part)
    return agent


def runner_root(loaded: BaseAgent | App, app_name: str | None) -> dict[str, Any]:
    """The Runner's ``app`` / ``agent`` and ``app_name`` arguments for what ``--agent`` named.

    An App brings its plugins; ``--app-name`` (``app_name``) renames either.
    """
    from adk_runtime.apps import App

    if isinstance(loaded, App):
        return {"app": loaded, "app_name": app_name}
    return {"agent": loaded, "app_name": app_name or loaded.name}


def show_url(url: str) -> str:
    """Return ``url`` safe to print (passwords redacted)."""
    return redact_url(url)
