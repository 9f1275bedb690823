"""Build agents from YAML files (``google.adk.agents.config_agent_utils``).

A file describes one agent::

    # root_agent.yaml
    name: assistant
    model: gemini-2.5-flash
    instruction: Answer briefly.
    tools:
      - name: google_search
      - name: my_package.tools.lookup_order
    before_model_callbacks:
      - name: my_package.callbacks.audit
    sub_agents:
      - config_path: helpers/billing.yaml
      - code: my_package.agents.refunds

and ``from_config("root_agent.yaml")`` returns the ``LlmAgent``.

**A config file runs code.** Every dotted path in it (``agent_class``, ``code``, ``*_code``,
tools, callbacks, schemas) is imported and used, as in google-adk: load only files you would
run as Python. Two guards stay on: references into the standard library and a few
code-running packages are refused (:mod:`adk_runtime.agents._config_denylist`), and a
``config_path`` must stay inside the directory of the file that names it (absolute paths and
``..`` leading out are refused, as google-adk does). ``_set_enforce_yaml_key_denylist(True)``
also refuses the ``args`` key (off by default, as in google-adk). Paths under ``google.adk.``
are read as the same paths under ``adk_runtime.``, so a file written for google-adk loads
unchanged.

Errors are :class:`~adk_runtime.errors.AgentConfigError` (a ``ValueError``) naming the file
and the field; a missing file is ``FileNotFoundError``.
"""

from __future__ import annotations

import importlib
import inspect
import os
from contextvars import ContextVar
from typing import Any

import yaml

from adk_runtime.agents import _config_denylist
from adk_runtime.agents._config_mapper import config_as_model, located
from adk_runtime.core.base_agent import BaseAgent
from adk_runtime.core.common_configs import AgentRefConfig, CodeConfig
from adk_runtime.errors import AgentConfigError

__all__ = [
    "from_config",
    "resolve_agent_reference",
    "resolve_callbacks",
    "resolve_code_reference",
    "resolve_fully_qualified_name",
]

_GOOGLE_ADK = "google.adk."
_BUILT_IN_AGENTS = "LlmAgent (or Agent), LoopAgent, ParallelAgent and SequentialAgent"
# The files being loaded in this context, outermost first: a file that reaches itself
# through `config_path` references is a cycle, reported instead of recursing forever.
_loading: ContextVar[tuple[str, ...]] = ContextVar("adk_runtime_agent_config_loading", default=())


def from_config(config_path: str) -> BaseAgent:
    """Build the agent a YAML file describes, with its sub-agents, tools and callbacks.

    The file is read with ``yaml.safe_load``; ``agent_class`` (default ``LlmAgent``) picks
    the class, whose ``config_type`` validates the keys and whose ``from_config`` builds it.
    Importing the code the file names runs that code: load trusted files only.

    Args:
        config_path: The YAML file.

    Returns:
        The agent.

    Raises:
        FileNotFoundError: The file does not exist.
        AgentConfigError: The file is not valid YAML or not a mapping, ``agent_class`` is
            unknown, a key or value is invalid, a reference cannot be resolved or is refused,
            or ``config_path`` references form a cycle (the message names file and field).
    """
    abs_path = os.path.abspath(config_path)
    key = os.path.realpath(abs_path)
    chain = _loading.get()
    if key in chain:
        cycle = " -> ".join([*chain[chain.index(key) :], key])
        raise AgentConfigError(f"config_path references form a cycle: {cycle}.", path=abs_path)
    token = _loading.set((*chain, key))
    try:
        data = _load_yaml(abs_path)
        _config_denylist.check_config_keys(data, abs_path)
        with located("agent_class", path=abs_path):
            agent_class = _resolve_agent_class(data.get("agent_class", "LlmAgent"))
        config = config_as_model(agent_class, data, abs_path)
        return agent_class.from_config(config, abs_path)
    finally:
        _loading.reset(token)


def resolve_agent_reference(
    ref_config: AgentRefConfig, referencing_agent_config_abs_path: str
) -> BaseAgent:
    """The agent a sub-agent reference names.

    Args:
        ref_config: ``config_path`` (a YAML file relative to the referring file's directory,
            which it may not leave) or ``code`` (the dotted path of an agent object).
        referencing_agent_config_abs_path: The absolute path of the referring file.

    Raises:
        AgentConfigError: The path is absolute or leads out of the directory, or the code
            reference does not name an agent object.
    """
    if ref_config.config_path:
        if os.path.isabs(ref_config.config_path):
            raise AgentConfigError(
                "Absolute paths are not allowed in AgentRefConfig config_path: "
                f"{ref_config.config_path!r}. Give the path relative to the directory of "
                "the file that refers to it."
            )
        agent_dir = os.path.dirname(referencing_agent_config_abs_path)
        resolved = os.path.realpath(os.path.join(agent_dir, ref_config.config_path))
        canonical_dir = os.path.realpath(agent_dir)
        if os.path.commonpath([canonical_dir, resolved]) != canonical_dir:
            raise AgentConfigError(
                f"Path traversal detected: config_path {ref_config.config_path!r} resolves "
                f"outside {canonical_dir!r}, the directory of the file that refers to it. "
                "Keep sub-agent files in that directory or below it."
            )
        return from_config(resolved)
    if ref_config.code:
        return _resolve_agent_code_reference(ref_config.code)
    raise AgentConfigError("An agent reference needs `code` or `config_path`.")


def resolve_code_reference(code_config: CodeConfig) -> Any:
    """Import the object ``code_config.name`` names (this runs its module's code).

    Raises:
        AgentConfigError: The name is not a dotted path, is refused by the denylist, or its
            module or attribute does not exist. An import error raised inside a module that
            does exist propagates unchanged.
    """
    if not code_config or not code_config.name:
        raise AgentConfigError("Invalid CodeConfig: it names nothing.")
    return _import_object(code_config.name)


def resolve_callbacks(callbacks_config: list[CodeConfig]) -> list[Any]:
    """The callbacks a list of code references names, in order.

    Raises:
        AgentConfigError: A reference cannot be resolved or names something not callable.
    """
    callbacks = []
    for config in callbacks_config:
        callback = resolve_code_reference(config)
        if not callable(callback):
            raise AgentConfigError(
                f"Callback {config.name!r} is a {type(callback).__name__}, not a function."
            )
        callbacks.append(callback)
    return callbacks


def resolve_fully_qualified_name(name: str) -> Any:
    """Import the object ``module.attribute`` names; every failure is an ``AgentConfigError``.

    Raises:
        AgentConfigError: ``Invalid fully qualified name``, caused by the underlying error
            (a refused module, a missing module or attribute, a failing import).
    """
    try:
        return _import_object(name)
    except AgentConfigError as exc:
        raise AgentConfigError(f"Invalid fully qualified name: {name!r}. {exc.reason}") from exc
    except Exception as exc:
        raise AgentConfigError(
            f"Invalid fully qualified name: {name!r}: importing it failed "
            f"({type(exc).__name__}: {exc})."
        ) from exc


def _set_enforce_denylist(value: bool) -> None:
    """Turn the module denylist on or off (google-adk's switch; on by default)."""
    _config_denylist.set_enforced(value)


def _set_enforce_yaml_key_denylist(value: bool) -> None:
    """Refuse the ``args`` key in config files, or allow it again (google-adk's switch).

    Off by default. When on, ``args`` anywhere in a file is an ``AgentConfigError``, except
    data-only ``args`` of an ``McpToolset`` entry in a built-in ``LlmAgent``'s ``tools``.
    """
    _config_denylist.set_keys_enforced(value)


def _resolve_agent_code_reference(code: str) -> BaseAgent:
    """The agent object a ``code`` reference names (an instance, not a class or factory)."""
    if "." not in code:
        raise AgentConfigError(
            f"Invalid code reference: {code!r}. Give the dotted path of an agent object, "
            "e.g. my_package.agents.helper."
        )
    agent = _import_object(code)
    if isinstance(agent, BaseAgent):
        return agent
    if inspect.isclass(agent):
        raise AgentConfigError(
            f"Invalid agent reference to a class: {code!r}. Name an agent object, or name the "
            "class in `agent_class` of a YAML file."
        )
    kind = "callable" if callable(agent) else f"non-agent {type(agent).__name__}"
    raise AgentConfigError(
        f"Invalid agent reference to a {kind}: {code!r}. It must name a BaseAgent object."
    )


def _import_object(dotted: str) -> Any:
    if "." not in dotted:
        raise AgentConfigError(
            f"Invalid code reference: {dotted!r} is not a dotted path (module.attribute)."
        )
    _config_denylist.check_module_reference(dotted)
    target = dotted
    if dotted.startswith(_GOOGLE_ADK):
        target = "adk_runtime." + dotted.removeprefix(_GOOGLE_ADK)
    module_path, attribute = target.rsplit(".", 1)
    try:
        module = importlib.import_module(module_path)
    except ModuleNotFoundError as exc:
        # Only a missing module the reference itself names is the config's fault; a module
        # that exists but imports something missing fails as itself.
        if exc.name is None or module_path == exc.name or module_path.startswith(f"{exc.name}."):
            raise AgentConfigError(
                f"Invalid fully qualified name: {dotted!r}: there is no module "
                f"{module_path!r} (is its package installed and on sys.path?)."
            ) from exc
        raise
    try:
        return getattr(module, attribute)
    except AttributeError as exc:
        raise AgentConfigError(
            f"Invalid fully qualified name: {dotted!r}: module {module_path!r} has no "
            f"attribute {attribute!r}."
        ) from exc


def _resolve_agent_class(agent_class: Any) -> type[BaseAgent]:
    if not isinstance(agent_class, str):
        raise AgentConfigError(f"agent_class must be a string, got {type(agent_class).__name__}.")
    name = agent_class or "LlmAgent"
    if "." not in name:
        found = getattr(importlib.import_module("adk_runtime.agents"), name, None)
        if inspect.isclass(found) and issubclass(found, BaseAgent):
            return found
        raise AgentConfigError(
            f"Unknown agent_class {name!r}. The built-in classes are {_BUILT_IN_AGENTS}; "
            "name any other BaseAgent subclass by its dotted path (my_package.agents.MyAgent)."
        )
    found = resolve_fully_qualified_name(name)
    if inspect.isclass(found) and issubclass(found, BaseAgent):
        return found
    raise AgentConfigError(
        f"Invalid class {name!r}: agent_class must name a BaseAgent subclass, got "
        f"{type(found).__name__} {found!r}."
    )


def _load_yaml(abs_path: str) -> dict[str, Any]:
    if not os.path.exists(abs_path):
        raise FileNotFoundError(f"Config file not found: {abs_path}")
    with open(abs_path, encoding="utf-8") as file:
        try:
            data = yaml.safe_load(file)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
            problem = getattr(exc, "problem", None) or type(exc).__name__
            raise AgentConfigError(f"not valid YAML{where}: {problem}.", path=abs_path) from exc
    if data is None:
        raise AgentConfigError("the file is empty.", path=abs_path)
    if not isinstance(data, dict):
        raise AgentConfigError(
            f"expected a mapping of agent keys (name, instruction...), got a "
            f"{type(data).__name__}.",
            path=abs_path,
        )
    return data
