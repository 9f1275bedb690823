"""From a validated agent config to the agent: YAML keys mapped onto the class's fields.

``BaseAgent.from_config`` ends here. Keys map by name, as in google-adk:

- ``sub_agents``: agent references (``config_path`` / ``code``);
- ``tools``: ``ToolConfig`` entries (:mod:`adk_runtime.agents._config_tools`);
- ``<field>_callbacks``: dotted paths of the callbacks of ``<field>_callback``;
- ``<field>_code``: a dotted path whose object is the field's value (``model_code``); a path
  starting with ``.`` is relative to the package named like the file's directory;
- a ``CodeConfig`` value (``input_schema``, ``output_schema``): the object it names;
- any other field: the value as written (the agent's own validation applies).

A key that is no field of the class is dropped with a warning (classes whose config forbids
unknown keys reject it before). Resolution goes through ``config_agent_utils``'s public
functions, looked up when called.
"""

from __future__ import annotations

import logging
import os
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from adk_runtime.core._config import invalid, located, register_loader
from adk_runtime.core.base_agent import BaseAgent
from adk_runtime.core.common_configs import AgentRefConfig, CodeConfig
from adk_runtime.errors import AgentConfigError

__all__ = ["build", "config_as_model", "located"]  # located: core._config's, for this package

logger = logging.getLogger("adk_runtime.agents.config")

_Agent = TypeVar("_Agent", bound="BaseAgent")


def config_as_model(cls: type[BaseAgent], data: dict[str, Any], path: str) -> BaseModel:
    """``data`` validated by ``cls.config_type``, the errors naming ``path`` and the key."""
    config_type = cls.config_type
    try:
        return config_type.model_validate(data)
    except ValidationError as exc:
        raise invalid(exc, path, None, config_type) from exc


def build(cls: type[_Agent], config: BaseModel | dict[str, Any], path: str) -> _Agent:
    """The agent of class ``cls`` that ``config`` describes (see the module docstring).

    Raises:
        AgentConfigError: A value cannot be resolved, or the agent refuses it.
    """
    if isinstance(config, dict):
        config = config_as_model(cls, config, path)
    if not isinstance(config, BaseModel):
        raise AgentConfigError(
            f"Expected an agent config model or a mapping, got {type(config).__name__}.",
            path=path,
        )
    kwargs = _Mapper(cls, path).kwargs(_values(config))
    if _function(cls._parse_config) is not _function(BaseAgent._parse_config):
        kwargs = cls._parse_config(config, path, kwargs)
    with located(None, path=path):
        try:
            return cls(**kwargs)
        except ValidationError:
            raise
        except ValueError as exc:  # a check of the agent's own (a sub-agent with a parent...)
            if isinstance(exc, AgentConfigError):
                raise
            raise AgentConfigError(str(exc)) from exc


class _Mapper:
    def __init__(self, cls: type[BaseAgent], path: str) -> None:
        self._cls = cls
        self._path = path
        self._fields = set(cls.model_fields)

    def kwargs(self, values: dict[str, Any]) -> dict[str, Any]:
        kwargs: dict[str, Any] = {}
        unknown = []
        for key, value in values.items():
            target = self._target(key)
            if target is None:
                unknown.append(key)
                continue
            with located(key, path=self._path):
                kwargs[target] = self._value(key, target, value)
        if unknown:
            logger.warning(
                "%s: %s has no fields %s; those keys are ignored.",
                self._path,
                self._cls.__name__,
                sorted(unknown),
            )
        return kwargs

    def _target(self, key: str) -> str | None:
        if key.endswith("_code") and key.removesuffix("_code") in self._fields:
            return key.removesuffix("_code")
        if key.endswith("_callbacks") and key.removesuffix("s") in self._fields:
            return key.removesuffix("s")
        return key if key in self._fields else None

    def _value(self, key: str, target: str, value: Any) -> Any:
        from adk_runtime.agents import _config_tools, config_agent_utils

        if key != target and key.endswith("_code"):
            return config_agent_utils.resolve_code_reference(self._relative(_code(value)))
        if key == "sub_agents":
            return [self._sub_agent(index, item) for index, item in enumerate(value)]
        if key == "tools":
            return _config_tools.resolve_tools(value, self._path)
        if target.endswith("_callback"):
            items = value if isinstance(value, list) else [value]
            callbacks = []
            for index, item in enumerate(items):
                with located(f"[{index}]"):
                    callbacks.extend(config_agent_utils.resolve_callbacks([_code(item)]))
            return callbacks if isinstance(value, list) else callbacks[0]
        if isinstance(value, CodeConfig):
            return config_agent_utils.resolve_code_reference(value)
        return value

    def _sub_agent(self, index: int, item: Any) -> BaseAgent:
        from adk_runtime.agents import config_agent_utils

        with located(f"[{index}]"):
            if isinstance(item, str):
                item = AgentRefConfig(config_path=item)
            reference = AgentRefConfig.model_validate(item)
            return config_agent_utils.resolve_agent_reference(reference, self._path)

    def _relative(self, code: CodeConfig) -> CodeConfig:
        if not code.name.startswith("."):
            return code
        package = os.path.basename(os.path.dirname(self._path))
        return CodeConfig(name=package + code.name)


def _values(config: BaseModel) -> dict[str, Any]:
    """The keys the file set (as validated objects) and the extra keys, without ``None``."""
    values = {name: getattr(config, name) for name in config.model_fields_set}
    values.update(config.model_extra or {})
    return {k: v for k, v in values.items() if k != "agent_class" and v is not None}


def _code(value: Any) -> CodeConfig:
    return CodeConfig(name=value) if isinstance(value, str) else CodeConfig.model_validate(value)


def _function(method: Any) -> Any:
    return getattr(method, "__func__", method)


class _Loader:
    """The YAML config loader the core reaches through ``core._config.loader()``."""

    def build_agent(self, cls: type[Any], config: Any, path: str) -> Any:
        return build(cls, config, path)

    def build_tool(self, cls: type[Any], args: Any, path: str) -> Any:
        from adk_runtime.agents._config_tools import build_from_args

        return build_from_args(cls, args, path)

    def resolve_agent_reference(self, reference: Any, path: str) -> Any:
        from adk_runtime.agents import config_agent_utils

        return config_agent_utils.resolve_agent_reference(reference, path)

    def resolve_fully_qualified_name(self, name: str) -> Any:
        from adk_runtime.agents import config_agent_utils

        return config_agent_utils.resolve_fully_qualified_name(name)


register_loader(_Loader())
