"""References an agent YAML file makes to Python code and to other agent files.

``google.adk.agents.common_configs`` → ``adk_runtime.core.common_configs``.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator

__all__ = ["AgentRefConfig", "CodeConfig"]


class CodeConfig(BaseModel):
    """A Python object named by its dotted path (``my_package.callbacks.audit``).

    Resolving it imports the module and reads the attribute: a config file that names code
    runs that code, so load only config files you trust. Objects of ``google.adk.…`` paths
    are taken from the same path under ``adk_runtime``. There are no constructor arguments:
    build a configured object in Python and name it here.

    Attributes:
        name: The dotted path of a variable, function or class.
    """

    model_config = ConfigDict(extra="forbid")

    name: str


class AgentRefConfig(BaseModel):
    """A sub-agent: another YAML file, or an agent object defined in Python.

    Attributes:
        config_path: A YAML file, relative to the directory of the file that refers to it
            (absolute paths and paths leading out of that directory are refused).
        code: The dotted path of an agent instance (``my_package.agents.helper``).

    Exactly one of the two is set. Where a reference is read, a bare string stands for
    one: ``sub.yaml`` (ending in ``.yaml`` or ``.yml``) a file, ``pkg.agent`` code.
    """

    model_config = ConfigDict(extra="forbid")

    config_path: str | None = None
    code: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        """A bare string: a YAML file when it ends in ``.yaml``/``.yml``, else code."""
        if isinstance(value, str):
            is_file = value.endswith((".yaml", ".yml"))
            return {"config_path": value} if is_file else {"code": value}
        return value

    @model_validator(mode="after")
    def _one_source(self) -> AgentRefConfig:
        if (self.code is None) == (self.config_path is None):
            raise ValueError(
                "An agent reference needs exactly one of `code` or `config_path`, "
                f"got code={self.code!r} and config_path={self.config_path!r}."
            )
        return self
