"""The App a Runner runs: made of its arguments, checked against its agent's origin.

``resolve_app`` turns the Runner's arguments into its App; ``compact`` commits the summary
the App's compaction config asks for after a turn.

Sessions are keyed by app name. An agent loaded from ``agents/NAME`` (by the AgentLoader, or
imported from a folder of that name under an ``agents`` directory) is, for the ADK tools,
the app ``NAME``; a Runner built with another app name reads other sessions, and its
"session not found" error says so.
"""

from __future__ import annotations

import logging
import os
import sys
import warnings
from pathlib import Path
from typing import Any

from adk_runtime.apps.app import App
from adk_runtime.apps.compaction import compact_after_invocation
from adk_runtime.core.base_agent import BaseAgent
from adk_runtime.core.base_plugin import BasePlugin
from adk_runtime.sessions.base import BaseSessionService
from adk_runtime.sessions.session import Session

__all__ = ["agent_origin", "alignment_hint", "compact", "resolve_app"]

logger = logging.getLogger("adk_runtime.runners")


def resolve_app(
    app: App | None,
    app_name: str | None,
    agent: BaseAgent | None,
    plugins: list[BasePlugin] | None,
    node: Any = None,
) -> App:
    """The App the Runner runs: ``app`` itself, or one made of ``app_name``, ``agent``, ``plugins``.

    Raises:
        ValueError: The arguments do not name exactly one of ``app``, ``agent`` and ``node``,
            or ``agent`` comes without ``app_name``, or ``plugins`` with ``app``.
    """
    if sum(given is not None for given in (app, agent, node)) > 1:
        raise ValueError(
            "Only one of app, agent, or node may be provided: give the Runner an app, an "
            "agent (with app_name) or a workflow node."
        )
    if app is None and agent is None and node is None:
        raise ValueError(
            "One of app, agent, or node must be provided (app_name is required when agent is "
            "provided): give the Runner an app, an agent and an app_name, or a node."
        )
    from adk_runtime.workflow._root import as_agent

    if node is not None:
        agent = as_agent(node)
        app_name = app_name or getattr(node, "name", None)
    else:  # a workflow node given as the agent (google-adk 2 takes one) runs as a root node
        agent = as_agent(agent)
    if plugins is not None:
        if app is not None:
            raise ValueError("With app, give the plugins in App(plugins=...), not to the Runner.")
        warnings.warn(
            "Runner(plugins=...) is deprecated (as in google-adk): pass "
            "app=App(name=..., root_agent=..., plugins=[...]) instead.",
            DeprecationWarning,
            stacklevel=3,
        )
    if app is not None:
        return app
    if not app_name:
        raise ValueError(
            "app_name is required when agent is provided: give the Runner its app_name."
        )
    # model_construct: an agent-and-name Runner keeps its historical freedom of names
    # (validate_id still checks them), as google-adk does.
    return App.model_construct(name=app_name, root_agent=agent, plugins=list(plugins or []))


def agent_origin(agent: BaseAgent) -> tuple[str | None, Path | None]:
    """The app name ``agent``'s origin implies, and its folder (either may be None).

    The AgentLoader records both; otherwise the folder of the module that defines the
    agent's class decides: it names the app when it lies under an ``agents`` directory
    below the working directory. Agents of adk_runtime's own classes imply nothing.
    """
    name = getattr(agent, "_adk_origin_app_name", None)
    path = getattr(agent, "_adk_origin_path", None)
    if isinstance(name, str) and isinstance(path, Path):
        return name, path
    module_name = type(agent).__module__
    filename = getattr(sys.modules.get(module_name), "__file__", None)
    if module_name.partition(".")[0] == "adk_runtime" or not isinstance(filename, str):
        return None, None
    # No file system access (the Runner may be built on the event loop): an imported
    # module's __file__ is absolute, and the working directory is the process's own.
    folder = Path(os.path.normpath(filename)).parent
    try:
        relative = folder.relative_to(os.getcwd())
    except ValueError:
        return None, folder
    if "agents" not in relative.parts or folder.name.startswith("."):
        return None, folder
    return folder.name, folder


def alignment_hint(app_name: str, origin: str | None, folder: Path | None) -> str | None:
    """What to tell the user when the Runner's ``app_name`` is not the agent's (else None)."""
    if not origin or origin.startswith("__") or origin == app_name:
        return None
    hint = (
        f"The Runner's app name is {app_name!r}, but its root agent comes from "
        f"{str(folder or origin)!r}, which makes the app {origin!r}: sessions created under "
        f"{origin!r} are not found under {app_name!r}. Ensure the runner app_name matches the "
        "app the sessions were created in, and use the same app name everywhere."
    )
    logger.warning("app name mismatch: %s", hint)
    return hint


async def compact(app: App, service: BaseSessionService, session: Session) -> None:
    """Commit the compaction event due after this invocation, if the app asks for one.

    Under the turn's claim, after its last event was yielded: the caller's iteration ends
    once it is committed.
    """
    if app.events_compaction_config is None:
        return
    summary = await compact_after_invocation(app, session.events, session_id=session.id)
    if summary is None:
        return
    try:
        await service.append_event(session, summary)
    except Exception as exc:  # the turn is committed and answered; the next one retries
        logger.warning(
            "Event compaction of session %s was not committed (%s); the turn stands.",
            session.id,
            type(exc).__name__,
        )
