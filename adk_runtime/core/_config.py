"""YAML agent config as the core sees it: errors located in the file, and the loader.

The loader (:mod:`adk_runtime.agents._config_mapper`) registers itself when the agents package
is imported; ``BaseAgent.from_config``, ``BaseTool.from_config`` and the tools that take an agent
reference reach it through :func:`loader`, so the core never imports the YAML machinery.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from pydantic import BaseModel, ValidationError

from adk_runtime.errors import AgentConfigError

__all__ = ["ConfigLoader", "invalid", "loader", "located", "register_loader"]


class ConfigLoader(Protocol):
    """Builds agents and tools from their YAML config (the agents package provides it)."""

    def build_agent(self, cls: type[Any], config: Any, path: str) -> Any:
        """The agent of class ``cls`` that ``config`` (a model or a mapping) describes."""
        ...

    def build_tool(self, cls: type[Any], args: Any, path: str) -> Any:
        """The tool or toolset of class ``cls`` built from a tool entry's ``args``."""
        ...

    def resolve_agent_reference(self, reference: Any, path: str) -> Any:
        """The agent an ``AgentRefConfig`` names (a YAML path or a dotted code path)."""
        ...

    def resolve_fully_qualified_name(self, name: str) -> Any:
        """The object a dotted path names."""
        ...


_loaders: list[ConfigLoader] = []


def register_loader(config_loader: ConfigLoader) -> None:
    """Make ``config_loader`` the one YAML config goes through (the last registered wins)."""
    _loaders[:] = [config_loader]


def loader() -> ConfigLoader:
    """The registered loader.

    Raises:
        AgentConfigError: None is registered (``adk_runtime.agents`` was never imported).
    """
    if not _loaders:
        raise AgentConfigError(
            "YAML agent config is not loaded: import adk_runtime.agents (or "
            "adk_runtime.agents.config_agent_utils) before building from a config."
        )
    return _loaders[0]


@contextmanager
def located(field: str | None, *, path: str | None = None) -> Iterator[None]:
    """Name ``field`` (and ``path``) in the config errors raised inside.

    Nested uses compose (``tools[1]`` then ``args.agent``); an error that already names a
    file (raised while loading another file) passes through unchanged.
    """
    try:
        yield
    except AgentConfigError as exc:
        if exc.path is not None:
            raise
        raise AgentConfigError(exc.reason, path=path, field=_join(field, exc.field)) from exc
    except ValidationError as exc:
        raise invalid(exc, path, field) from exc


def _join(outer: str | None, inner: str | None) -> str | None:
    if not outer or not inner:
        return outer or inner
    return f"{outer}{inner}" if inner.startswith("[") else f"{outer}.{inner}"


def invalid(
    exc: ValidationError,
    path: str | None,
    field: str | None,
    config_type: type[BaseModel] | None = None,
) -> AgentConfigError:
    """``exc``'s problems, located at the first one (three at most are described)."""
    problems = [_problem(error, config_type) for error in exc.errors(include_url=False)]
    (location, reason), rest = problems[0], problems[1:]
    for other_location, other_reason in rest[:2]:
        reason += f"; also {other_location or 'the value'}: {other_reason}"
    if len(rest) > 2:
        reason += f"; and {len(rest) - 2} more"
    return AgentConfigError(reason + ".", path=path, field=_join(field, location) or None)


def _problem(error: Any, config_type: type[BaseModel] | None) -> tuple[str, str]:
    location = "".join(
        f"[{part}]" if isinstance(part, int) else f".{part}" for part in error["loc"]
    ).lstrip(".")
    if error["type"] == "extra_forbidden":
        reason = "unknown key"
        if config_type is not None:
            known = ", ".join(sorted(config_type.model_fields))
            reason += f" for {config_type.__name__} (the keys are: {known})"
        return location, reason
    if error["type"] == "missing":
        return location, "a required key is missing"
    return location, str(error["msg"])
