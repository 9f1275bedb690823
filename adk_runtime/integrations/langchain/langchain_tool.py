"""``LangchainTool``: a LangChain tool offered to the model as a function.

The declaration is the LangChain tool's own: its name, description and the JSON schema of
its arguments (``tool_call_schema``). A call runs ``tool.ainvoke(args)`` (LangChain runs a
synchronous tool in a worker thread); an object that only has ``run`` / ``_run`` is called
in a worker thread. A tool with ``return_direct`` ends the turn on its result
(``skip_summarization``), as in google-adk.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from google.genai import types
from langchain_core.tools import BaseTool as LangchainBaseTool
from pydantic import BaseModel

from adk_runtime.core._config import loader, located
from adk_runtime.core._tool_configs import BaseToolConfig
from adk_runtime.core.base_tool import BaseTool
from adk_runtime.errors import AgentConfigError
from adk_runtime.tools._declaration import function_declaration

if TYPE_CHECKING:
    from adk_runtime.core._tool_configs import ToolArgsConfig
    from adk_runtime.core.tool_context import ToolContext

__all__ = ["LangchainTool", "LangchainToolConfig"]


def _arguments_schema(tool: object) -> dict[str, Any] | None:
    schema: Any = getattr(tool, "tool_call_schema", None) or getattr(tool, "args_schema", None)
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        schema = schema.model_json_schema()
    if not isinstance(schema, dict) or not schema.get("properties"):
        return None
    return {key: value for key, value in schema.items() if key not in ("title", "description")}


class LangchainTool(BaseTool):
    """Wraps a LangChain tool (see the module docstring).

    Attributes:
        tool: The wrapped LangChain tool.
    """

    def __init__(
        self, tool: LangchainBaseTool | Any, name: str | None = None, description: str | None = None
    ) -> None:
        """Wrap ``tool``; ``name`` and ``description`` replace its own.

        Raises:
            ValueError: ``tool`` is not a LangChain tool and has no ``run`` / ``_run``.
        """
        if not isinstance(tool, LangchainBaseTool) and not (
            callable(getattr(tool, "run", None)) or callable(getattr(tool, "_run", None))
        ):
            raise ValueError(
                f"{type(tool).__name__} is not a LangChain tool (a langchain_core BaseTool, or "
                "an object with a run method)."
            )
        super().__init__(
            name=name or getattr(tool, "name", None) or type(tool).__name__,
            description=description or getattr(tool, "description", None) or "",
        )
        self.tool = tool

    @classmethod
    def from_config(cls, config: ToolArgsConfig, config_abs_path: str) -> LangchainTool:
        """Build the tool from an agent YAML file's ``args`` (a :class:`LangchainToolConfig`).

        Raises:
            pydantic.ValidationError: A key ``LangchainToolConfig`` does not have.
            AgentConfigError: ``tool`` names nothing importable, or no LangChain tool.
        """
        settings = LangchainToolConfig.model_validate(config.model_dump())
        with located("tool"):
            tool = loader().resolve_fully_qualified_name(settings.tool)
            try:
                return cls(
                    tool, name=settings.name or None, description=settings.description or None
                )
            except ValueError as error:
                raise AgentConfigError(str(error)) from None

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        return function_declaration(self.name, self.description, _arguments_schema(self.tool))

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Run the LangChain tool with ``args``."""
        if isinstance(self.tool, LangchainBaseTool):
            result = await self.tool.ainvoke(args)
        else:
            # _run: LangChain's documented method a tool implements (its run calls it)
            run = getattr(self.tool, "run", None) or self.tool._run
            result = await asyncio.to_thread(run, **args)
        if getattr(self.tool, "return_direct", False):
            tool_context.actions.skip_summarization = True
        return result


class LangchainToolConfig(BaseToolConfig):
    """The ``args`` of a ``LangchainTool`` entry in an agent YAML file (google-adk's model).

    ``tool``: the dotted path of the LangChain tool instance; ``name`` and ``description``
    replace its own when not empty.
    """

    tool: str
    name: str = ""
    description: str = ""
