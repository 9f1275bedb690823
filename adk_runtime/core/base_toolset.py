"""BaseToolset: a source of tools resolved for each invocation (an MCP server, an API, ...)."""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Protocol, TypeVar, final, runtime_checkable

from google.genai import types

from adk_runtime.core import _config
from adk_runtime.core.base_tool import BaseTool
from adk_runtime.core.readonly_context import ReadonlyContext

if TYPE_CHECKING:
    from adk_runtime.auth.auth_tool import AuthConfig
    from adk_runtime.core._tool_configs import ToolArgsConfig
    from adk_runtime.core.tool_context import ToolContext
    from adk_runtime.models.llm_request import LlmRequest

__all__ = ["BaseToolset", "SelfToolset", "ToolPredicate"]


@runtime_checkable
class ToolPredicate(Protocol):
    """Decides whether a tool of a toolset is offered to the model in this context."""

    def __call__(self, tool: BaseTool, readonly_context: ReadonlyContext | None = None) -> bool:
        """Return True to offer ``tool``."""
        ...


SelfToolset = TypeVar("SelfToolset", bound="BaseToolset")


class BaseToolset(ABC):
    """A collection of tools an ``LlmAgent`` resolves before each model call.

    Put a toolset in ``LlmAgent.tools`` like a tool. Before each model call the agent calls
    :meth:`get_tools_with_prefix` with the invocation's ``ReadonlyContext`` (the result is
    reused within one invocation), lets the toolset adjust the request
    (:meth:`process_llm_request`), then offers its tools. A toolset whose ``get_tools``
    raises is left out of that call (logged as an error), as in google-adk: the agent still
    answers, without those tools. ``Runner.close()`` calls :meth:`close` on every toolset of
    the agent tree.

    Attributes:
        tool_filter: Tool names to offer, or a :class:`ToolPredicate`; None offers all.
        tool_name_prefix: Offer each tool as ``<prefix>_<name>``.
    """

    def __init__(
        self,
        *,
        tool_filter: ToolPredicate | list[str] | None = None,
        tool_name_prefix: str | None = None,
    ) -> None:
        """Create a toolset with an optional filter and name prefix."""
        self.tool_filter = tool_filter
        self.tool_name_prefix = tool_name_prefix
        self._cached_invocation_id: str | None = None
        self._cached_prefixed_tools: list[BaseTool] | None = None

    @classmethod
    def from_config(
        cls: type[SelfToolset], config: ToolArgsConfig, config_abs_path: str
    ) -> SelfToolset:
        """Build the toolset from the ``args`` of a ``tools:`` entry of an agent YAML file.

        Each key is a constructor argument, as for ``BaseTool.from_config`` (google-adk's
        default raises instead; ``McpToolset`` reads google-adk's ``McpToolsetConfig``).

        Raises:
            AgentConfigError: A key the constructor does not take, or a value it refused.
        """
        toolset: SelfToolset = _config.loader().build_tool(cls, config, config_abs_path)
        return toolset

    @abstractmethod
    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        """Return the tools available in ``readonly_context`` (all of them when None).

        Implementations apply ``tool_filter`` (see :meth:`_is_tool_selected`).
        """

    @final
    async def get_tools_with_prefix(
        self, readonly_context: ReadonlyContext | None = None
    ) -> list[BaseTool]:
        """Return :meth:`get_tools`, renamed with ``tool_name_prefix``; once per invocation.

        The prefixed tools are shallow copies: the originals keep their names.
        """
        invocation_id = readonly_context.invocation_id if readonly_context else None
        if self._cached_prefixed_tools is not None and self._cached_invocation_id == invocation_id:
            return self._cached_prefixed_tools
        tools = await self.get_tools(readonly_context)
        if self.tool_name_prefix:
            tools = [_prefixed(tool, f"{self.tool_name_prefix}_{tool.name}") for tool in tools]
        self._cached_invocation_id = invocation_id
        self._cached_prefixed_tools = tools
        return tools

    def get_auth_config(self) -> AuthConfig | None:
        """The credential the toolset needs before it can list its tools; None by default.

        When it returns a config, the agent gets the credential before each model call (from
        the credential service, the user's answer, or a token exchange, as
        ``CredentialManager`` does) and the toolset reads it with
        ``readonly_context.get_credential(config.credential_key)``; when there is none yet,
        the agent asks the user for it (``adk_request_credential``) and the invocation
        pauses before the model is called.
        """
        return None

    async def close(self) -> None:  # noqa: B027 - optional, as in google-adk
        """Release what the toolset holds (connections, subprocesses); by default nothing."""

    async def process_llm_request(  # noqa: B027 - optional, as in google-adk
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Adjust the request before the toolset's tools adjust it; by default nothing."""

    def _is_tool_selected(self, tool: BaseTool, readonly_context: ReadonlyContext | None) -> bool:
        """Whether ``tool_filter`` lets ``tool`` through."""
        if not self.tool_filter:
            return True
        if isinstance(self.tool_filter, list):
            return tool.name in self.tool_filter
        return bool(self.tool_filter(tool, readonly_context))


def _prefixed(tool: BaseTool, name: str) -> BaseTool:
    """A shallow copy of ``tool`` called ``name``, its declaration renamed too."""
    renamed = copy.copy(tool)
    renamed.name = name
    original = tool._get_declaration

    def declaration() -> types.FunctionDeclaration | None:
        found = original()
        if found is None:
            return None
        return found.model_copy(update={"name": name})

    renamed._get_declaration = declaration  # type: ignore[method-assign]
    return renamed
