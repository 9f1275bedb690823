"""The ``tools:`` entries of an agent YAML file, resolved to tools.

An entry's ``name`` without a dot is a built-in of ``adk_runtime.tools`` (``google_search``,
``load_memory``, ``exit_loop``, ``AgentTool``...); a dotted name is imported (running its
module: trusted files only). What it names decides the rest:

- a tool or toolset object: used as it is (``args`` are refused: they would do nothing);
- a ``BaseTool`` / ``BaseToolset`` class: built from ``args`` by its ``from_config(args,
  path)`` (by default its constructor, :func:`build_from_args`: an argument typed as an
  agent takes a YAML path or an agent reference, one typed as a pydantic model takes a
  mapping, one typed as a callable takes a dotted path; ``AgentTool``, ``ExampleTool`` and
  ``LangchainTool`` read their own config models);
- a function: with ``args``, called with them (a ``ToolArgsConfig``) to build the tool;
  without, offered to the model itself (a ``FunctionTool``).
"""

from __future__ import annotations

import collections.abc
import importlib
import inspect
import typing
from typing import Any

from pydantic import BaseModel

from adk_runtime.agents._config_mapper import located
from adk_runtime.core._tool_configs import ToolArgsConfig, ToolConfig
from adk_runtime.core.base_agent import BaseAgent
from adk_runtime.core.common_configs import AgentRefConfig, CodeConfig
from adk_runtime.errors import AgentConfigError

__all__ = ["build_from_args", "resolve_tools"]


def resolve_tools(entries: list[Any], path: str) -> list[Any]:
    """The tools of ``entries`` (``ToolConfig`` objects, mappings or bare names), in order.

    Raises:
        AgentConfigError: An entry names no tool, or its ``args`` do not fit (the message
            names ``tools[i]``).
    """
    tools = []
    for index, entry in enumerate(entries):
        with located(f"[{index}]"):
            config = ToolConfig(name=entry) if isinstance(entry, str) else entry
            tools.append(_resolve(ToolConfig.model_validate(config), path))
    return tools


def _resolve(config: ToolConfig, path: str) -> Any:
    from adk_runtime.agents import config_agent_utils
    from adk_runtime.core.base_tool import BaseTool
    from adk_runtime.core.base_toolset import BaseToolset

    if "." in config.name:
        found = config_agent_utils.resolve_code_reference(CodeConfig(name=config.name))
    else:
        found = _built_in(config.name)
    if isinstance(found, (BaseTool, BaseToolset)):
        if config.args is not None:
            raise AgentConfigError(
                f"{config.name!r} is a tool object: `args` apply only to a tool class or to a "
                "function that builds a tool. Remove them, or configure the object in Python."
            )
        return found
    if inspect.isclass(found):
        if issubclass(found, (BaseTool, BaseToolset)):
            with located("args"):
                return _construct(found, config.args or ToolArgsConfig(), path)
        raise AgentConfigError(
            f"{config.name!r} is the class {found.__name__}, not a BaseTool or BaseToolset "
            "subclass."
        )
    if callable(found):
        if config.args is None:
            return found
        tool = found(config.args)
        if not (isinstance(tool, (BaseTool, BaseToolset)) or callable(tool)):
            raise AgentConfigError(
                f"{config.name!r} was called with `args` to build a tool and returned a "
                f"{type(tool).__name__}."
            )
        return tool
    raise AgentConfigError(
        f"{config.name!r} is a {type(found).__name__}: name a tool, a toolset, a tool class "
        "or a function."
    )


def _built_in(name: str) -> Any:
    tools = importlib.import_module("adk_runtime.tools")
    try:
        return getattr(tools, name)
    except AttributeError:
        raise AgentConfigError(
            f"Unknown built-in tool {name!r}. The built-in names are: "
            f"{', '.join(sorted(tools.__all__))}; name any other tool by its dotted path "
            "(my_package.tools.my_tool)."
        ) from None


def _construct(cls: type[Any], args: ToolArgsConfig, path: str) -> Any:
    """``cls.from_config(args, path)`` (a config model's refusal names the fields)."""
    return cls.from_config(args, path)


def build_from_args(cls: type[Any], args: ToolArgsConfig, path: str) -> Any:
    """Build ``cls`` with each key of ``args`` as a constructor argument (``from_config``).

    An argument typed as an agent takes a YAML path or an agent reference, one typed as a
    pydantic model a mapping, one typed as a callable a dotted path; the rest are passed as
    they are.

    Raises:
        AgentConfigError: A key the constructor does not take, or the constructor refused
            the arguments.
    """
    parameters = dict(inspect.signature(cls.__init__).parameters)
    parameters.pop("self", None)
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    named = [n for n, p in parameters.items() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    hints = _hints(cls)
    kwargs: dict[str, Any] = {}
    for key, value in (args.model_extra or {}).items():
        if key not in named and not takes_any:
            raise AgentConfigError(
                f"{cls.__name__} takes no argument {key!r}; it takes: {', '.join(named)}.",
            )
        with located(key):
            kwargs[key] = _argument(hints.get(key), value, path)
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, AgentConfigError):
            raise
        raise AgentConfigError(f"{cls.__name__}(...) refused the arguments: {exc}") from exc


def _hints(cls: type[Any]) -> dict[str, Any]:
    """The constructor's resolved annotations (none when they cannot be resolved)."""
    try:
        return typing.get_type_hints(cls.__init__, localns={"BaseAgent": BaseAgent})
    except Exception:  # an annotation naming something its module cannot see
        return {}


def _argument(annotation: Any, value: Any, path: str) -> Any:
    from adk_runtime.agents import config_agent_utils

    if _names(annotation, BaseAgent) and isinstance(value, (str, dict)):
        reference = AgentRefConfig.model_validate(value)
        return config_agent_utils.resolve_agent_reference(reference, path)
    if inspect.isclass(annotation) and issubclass(annotation, BaseModel):
        return annotation.model_validate(value)
    if _is_callable(annotation) and isinstance(value, str):
        return config_agent_utils.resolve_fully_qualified_name(value)
    return value


def _names(annotation: Any, base: type[Any]) -> bool:
    if inspect.isclass(annotation):
        return issubclass(annotation, base)
    return any(_names(arg, base) for arg in typing.get_args(annotation))


def _is_callable(annotation: Any) -> bool:
    if typing.get_origin(annotation) is collections.abc.Callable:
        return True
    return any(_is_callable(arg) for arg in typing.get_args(annotation))
