"""Where the root agent came from, and whether the Runner's app name agrees with it.

Sessions are keyed by app name. An agent loaded from ``agents/NAME`` (by the AgentLoader,
or imported from a folder of that name under an ``agents`` directory) is, for the ADK tools,
the app ``NAME``; a Runner built with another app name reads other sessions, and its
"session not found" error says so.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from adk_runtime.core.base_agent import BaseAgent

__all__ = ["agent_origin", "alignment_hint"]

logger = logging.getLogger("adk_runtime.runners")


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
