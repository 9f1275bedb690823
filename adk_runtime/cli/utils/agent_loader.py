"""Load agents by name from a directory of agent folders (google-adk's ``AgentLoader``).

An agents directory holds one folder (or module) per agent; the folder's name is the
agent's name, which is also the app name its sessions are stored under. For the name
``NAME`` the loader looks, in this order, for:

1. an ``App`` named ``app`` or a ``root_agent`` in the module or package ``NAME``
   (``NAME.py`` or ``NAME/__init__.py``);
2. the same in ``NAME/agent.py``;
3. a YAML agent in ``NAME/root_agent.yaml`` (see :mod:`adk_runtime.agents.config_agent_utils`).

A directory that itself holds ``agent.py`` or ``root_agent.yaml`` is one agent (single-agent
mode): only its own name loads. Names are checked before anything is imported (letters,
digits and underscores, and a folder or module of that name must exist), so a name from a
request can never import an arbitrary module. Loading imports the agent's code: load
trusted directories only. A ``.env`` file in the agent's folder is read into the
environment (existing variables win) when python-dotenv is installed.
"""

from __future__ import annotations

import importlib
import logging
import os
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from adk_runtime._foreign import refuse_google_adk
from adk_runtime.agents.config_agent_utils import from_config
from adk_runtime.apps.app import App
from adk_runtime.cli.utils.base_agent_loader import BaseAgentLoader
from adk_runtime.core.base_agent import BaseAgent
from adk_runtime.errors import ConfigurationError
from adk_runtime.workflow._base_node import BaseNode
from adk_runtime.workflow._root import as_agent

__all__ = ["AgentLoadError", "AgentLoader", "is_single_agent_directory"]

logger = logging.getLogger(__name__)

_NAME = re.compile(r"[A-Za-z0-9_]{1,128}\Z")
_YAML = "root_agent.yaml"


class AgentLoadError(ConfigurationError, ValueError):
    """An agent name is malformed or unknown, or its module exposes no usable agent."""


def is_single_agent_directory(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is one agent's folder (it holds ``agent.py`` or ``root_agent.yaml``)."""
    folder = Path(path)
    return folder.is_dir() and ((folder / "agent.py").is_file() or (folder / _YAML).is_file())


class AgentLoader(BaseAgentLoader):
    """Agents by name from ``agents_dir``, imported once and cached.

    Args:
        agents_dir: The directory of agent folders, or one agent's folder.
    """

    def __init__(self, agents_dir: str | os.PathLike[str]) -> None:
        path = Path(agents_dir).resolve()
        self._single_agent_name: str | None = None
        if is_single_agent_directory(path):
            self._single_agent_name = path.name
            path = path.parent
        self.agents_dir = str(path)
        self._cache: dict[str, BaseAgent | App] = {}

    @property
    def is_single_agent(self) -> bool:
        """Whether the directory given was one agent's folder."""
        return self._single_agent_name is not None

    @property
    def single_agent_name(self) -> str | None:
        """That agent's name, in single-agent mode."""
        return self._single_agent_name

    def load_agent(self, agent_name: str) -> BaseAgent | App:
        """The root agent (or the App) named ``agent_name``, imported on first use.

        Raises:
            AgentLoadError: The name is malformed or names no agent here, or what the
                module exposes is not an adk_runtime agent or App (a ``ValueError``).
        """
        loaded = self._cache.get(agent_name)
        if loaded is None:
            loaded = self._load(agent_name)
            self._cache[agent_name] = loaded
        return loaded

    def list_agents(self) -> list[str]:
        """The agent folders of the directory (or the one agent), sorted."""
        if self._single_agent_name is not None:
            return [self._single_agent_name]
        base = Path(self.agents_dir)
        return sorted(
            entry.name
            for entry in base.iterdir()
            if _NAME.match(entry.name)
            and entry.name != "__pycache__"
            and (is_single_agent_directory(entry) or (entry / "__init__.py").is_file())
        )

    def list_agents_detailed(self) -> list[dict[str, Any]]:
        """Each loadable agent's name, root agent name, description and language.

        An agent that fails to load is logged (its error type only) and left out.
        """
        details: list[dict[str, Any]] = []
        for name in self.list_agents():
            try:
                loaded = self.load_agent(name)
            except Exception as exc:  # one broken agent must not hide the others
                logger.warning("agent %r did not load: %s", name, type(exc).__name__)
                continue
            agent = loaded.root_agent if isinstance(loaded, App) else loaded
            if agent is None:
                continue
            details.append(
                {
                    "name": name,
                    "root_agent_name": agent.name,
                    "description": agent.description,
                    "language": "yaml" if (self._folder(name) / _YAML).is_file() else "python",
                }
            )
        return details

    def remove_agent_from_cache(self, agent_name: str) -> None:
        """Forget ``agent_name`` and its imported modules, so the next load reads them anew."""
        self._cache.pop(agent_name, None)
        for module in [m for m in sys.modules if m == agent_name or m.startswith(agent_name + ".")]:
            del sys.modules[module]

    def _folder(self, agent_name: str) -> Path:
        return Path(self.agents_dir) / agent_name

    def _check_name(self, agent_name: str) -> None:
        if not isinstance(agent_name, str) or not _NAME.match(agent_name):
            raise AgentLoadError(
                f"Invalid agent name {str(agent_name)[:80]!r}: use letters, digits and "
                "underscores only (the name of the agent's folder)."
            )
        if self._single_agent_name is not None and agent_name != self._single_agent_name:
            raise AgentLoadError(
                f"Agent {agent_name!r} not found: this loader serves the single agent "
                f"{self._single_agent_name!r}."
            )
        folder = self._folder(agent_name)
        if not folder.is_dir() and not folder.with_suffix(".py").is_file():
            raise AgentLoadError(
                f"Agent {agent_name!r} not found: no folder or module of that name in "
                f"{self.agents_dir}."
            )

    def _load(self, agent_name: str) -> BaseAgent | App:
        self._check_name(agent_name)
        if self.agents_dir not in sys.path:
            sys.path.insert(0, self.agents_dir)
        _load_dotenv(self._folder(agent_name) / ".env")
        for module_name in (agent_name, f"{agent_name}.agent"):
            module = _import(agent_name, module_name)
            found = _exposed(module_name, module) if module is not None else None
            if found is not None:
                return _mark_origin(found, agent_name, self._folder(agent_name))
        config = self._folder(agent_name) / _YAML
        if config.is_file():
            return _mark_origin(from_config(str(config)), agent_name, self._folder(agent_name))
        raise AgentLoadError(
            f"Agent {agent_name!r} exposes nothing to run: define `root_agent` (or an App "
            f"named `app`) in {agent_name}/agent.py, {agent_name}/__init__.py or "
            f"{agent_name}.py, or write {agent_name}/{_YAML}, under {self.agents_dir}."
        )


def _import(agent_name: str, module_name: str) -> ModuleType | None:
    """``module_name``, or None when it (or the agent's package) does not exist."""
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name in (agent_name, module_name):
            return None
        raise AgentLoadError(
            f"Agent {agent_name!r}: {module_name} imports {exc.name!r}, which is not installed."
        ) from exc


def _exposed(module_name: str, module: ModuleType) -> BaseAgent | App | None:
    """The module's ``app`` (an App) or its ``root_agent`` (an agent, or a workflow node)."""
    app = getattr(module, "app", None)
    if isinstance(app, App):
        return app
    root = getattr(module, "root_agent", None)
    if root is None:
        return None
    refuse_google_adk(f"{module_name}.root_agent", agent=root)
    if isinstance(root, BaseNode):  # a workflow (google-adk 2): run as the root agent
        root = as_agent(root)
    if not isinstance(root, BaseAgent):
        hint = " (an App goes under the name `app`)" if isinstance(root, App) else ""
        raise AgentLoadError(
            f"{module_name}.root_agent is a {type(root).__name__}, not an adk_runtime agent{hint}."
        )
    return root


def _mark_origin(loaded: BaseAgent | App, agent_name: str, folder: Path) -> BaseAgent | App:
    """Record where ``loaded`` came from (the Runner compares it with its app name)."""
    targets: list[object] = [loaded]
    if isinstance(loaded, App):
        targets.append(loaded.root_agent)
    for target in targets:
        setattr(target, "_adk_origin_app_name", agent_name)  # noqa: B010
        setattr(target, "_adk_origin_path", folder)  # noqa: B010
    return loaded


def _load_dotenv(path: Path) -> None:
    if not path.is_file():
        return
    try:
        from dotenv import load_dotenv
    except ImportError:
        logger.warning("%s was not read: install python-dotenv to load an agent's .env file", path)
        return
    load_dotenv(path, override=False)
