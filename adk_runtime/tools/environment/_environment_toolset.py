"""EnvironmentToolset: Execute, ReadFile, EditFile and WriteFile over one environment."""

from __future__ import annotations

import asyncio
import threading
from typing import TYPE_CHECKING

from adk_runtime.core.base_toolset import BaseToolset, ToolPredicate
from adk_runtime.tools._confirm import RequireConfirmation
from adk_runtime.tools.environment._constants import ENVIRONMENT_INSTRUCTION
from adk_runtime.tools.environment._edit_file_tool import EditFileTool
from adk_runtime.tools.environment._execute_tool import ExecuteTool
from adk_runtime.tools.environment._read_file_tool import ReadFileTool
from adk_runtime.tools.environment._write_file_tool import WriteFileTool

if TYPE_CHECKING:
    from adk_runtime.core.base_tool import BaseTool
    from adk_runtime.core.readonly_context import ReadonlyContext
    from adk_runtime.core.tool_context import ToolContext
    from adk_runtime.environment._base_environment import BaseEnvironment
    from adk_runtime.models.llm_request import LlmRequest

__all__ = ["EnvironmentToolset"]


class EnvironmentToolset(BaseToolset):
    """Lets the model work in an environment: run commands, read, edit and write files.

    Tools: ``Execute`` (a shell command), ``ReadFile``, ``EditFile`` (replace one passage)
    and ``WriteFile``. Before each model call the toolset adds an instruction naming the
    working directory and how to use the tools. The environment is initialized on first use
    and closed by :meth:`close` (``Runner.close()`` calls it).

    Giving a model this toolset over a :class:`~adk_runtime.environment.LocalEnvironment`
    lets it run any command on this machine, as google-adk's does; pass
    ``require_confirmation=True`` to have the user approve each command, edit and write
    first (the call pauses durably until the user answers, like a function tool's).
    """

    def __init__(
        self,
        *,
        environment: BaseEnvironment,
        max_output_chars: int | None = None,
        require_confirmation: RequireConfirmation = False,
        tool_filter: ToolPredicate | list[str] | None = None,
        tool_name_prefix: str | None = None,
    ) -> None:
        """Offer ``environment`` to the model.

        Args:
            environment: Where commands run and files live.
            max_output_chars: Characters of command output or file content returned per call
                (default 30,000).
            require_confirmation: Ask the user before each ``Execute``, ``EditFile`` and
                ``WriteFile`` call (True, or a predicate of the call's arguments).
            tool_filter: Tool names to offer, or a predicate.
            tool_name_prefix: Offer each tool as ``<prefix>_<name>``.
        """
        super().__init__(tool_filter=tool_filter, tool_name_prefix=tool_name_prefix)
        self._environment = environment
        self._max_output_chars = max_output_chars
        self._require_confirmation = require_confirmation
        self._environment_initialized = False
        self._locks: dict[asyncio.AbstractEventLoop, asyncio.Lock] = {}
        self._locks_guard = threading.Lock()

    def _init_lock(self) -> asyncio.Lock:
        """The lock of the running loop (a toolset may be used from more than one loop)."""
        loop = asyncio.get_running_loop()
        with self._locks_guard:
            for closed in [other for other in self._locks if other.is_closed()]:
                del self._locks[closed]
            return self._locks.setdefault(loop, asyncio.Lock())

    async def _ensure_initialized(self) -> None:
        if self._environment_initialized:
            return
        async with self._init_lock():
            if not self._environment_initialized:
                await self._environment.initialize()
                self._environment_initialized = True

    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        """The four tools (those ``tool_filter`` lets through), the environment initialized."""
        await self._ensure_initialized()
        confirm = self._require_confirmation
        tools: list[BaseTool] = [
            ExecuteTool(
                self._environment,
                max_output_chars=self._max_output_chars,
                require_confirmation=confirm,
            ),
            ReadFileTool(self._environment, max_output_chars=self._max_output_chars),
            EditFileTool(self._environment, require_confirmation=confirm),
            WriteFileTool(self._environment, require_confirmation=confirm),
        ]
        return [tool for tool in tools if self._is_tool_selected(tool, readonly_context)]

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Add the instruction naming the working directory."""
        await self._ensure_initialized()
        working_dir = self._environment.working_dir
        llm_request.append_instructions([ENVIRONMENT_INSTRUCTION.format(working_dir=working_dir)])

    async def close(self) -> None:
        """Close the environment (a temporary working directory is removed)."""
        async with self._init_lock():
            if self._environment_initialized:
                await self._environment.close()
                self._environment_initialized = False
            self._cached_prefixed_tools = None
            self._cached_invocation_id = None
