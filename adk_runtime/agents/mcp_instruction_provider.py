"""McpInstructionProvider: an agent's instruction taken from an MCP server's prompt.

Needs the ``mcp`` extra: importing this module without the MCP SDK raises
``ConfigurationError`` naming it.
"""

from __future__ import annotations

import logging
import sys
from typing import Any, TextIO

from adk_runtime.core.readonly_context import ReadonlyContext
from adk_runtime.tools.mcp_tool.mcp_session_manager import (
    MCPSessionManager,
    _connection_lost,  # pyright: ignore[reportPrivateUsage]
)

__all__ = ["McpInstructionProvider"]

logger = logging.getLogger(__name__)


class McpInstructionProvider:
    """Use as ``LlmAgent(instruction=McpInstructionProvider(params, "prompt_name"))``.

    Before each model call it fetches the named prompt from the server, filling the
    prompt's arguments from the session state keys of the same names, and joins the text
    of its messages. Call :meth:`close` when done.
    """

    def __init__(self, connection_params: Any, prompt_name: str, errlog: TextIO = sys.stderr):
        """Fetch prompt ``prompt_name`` from the server ``connection_params`` names."""
        self.prompt_name = prompt_name
        self._connection_params = connection_params
        self._errlog = errlog
        self._mcp_session_manager = MCPSessionManager(connection_params, errlog=errlog)

    async def __call__(self, context: ReadonlyContext) -> str:
        """The prompt's text for the current state.

        A session whose connection was lost is replaced once.

        Raises:
            ValueError: The server returned no text message for the prompt.
        """
        session = await self._mcp_session_manager.create_session()
        try:
            result = await self._fetch(session, context)
        except Exception as exc:
            if not _connection_lost(exc):
                raise
            logger.info("MCP connection lost (%s); reconnecting once.", type(exc).__name__)
            await self._mcp_session_manager.discard(session)
            session = await self._mcp_session_manager.create_session()
            result = await self._fetch(session, context)
        texts = [
            message.content.text
            for message in result.messages or []
            if getattr(message.content, "type", None) == "text"
        ]
        if not texts:
            raise ValueError(f"Failed to load MCP prompt '{self.prompt_name}'.")
        return "".join(texts)

    async def _fetch(self, session: Any, context: ReadonlyContext) -> Any:
        listed = await session.list_prompts()
        prompt = next((p for p in listed.prompts if p.name == self.prompt_name), None)
        wanted = {argument.name for argument in (prompt.arguments or [])} if prompt else set()
        arguments = {key: str(value) for key, value in context.state.items() if key in wanted}
        return await session.get_prompt(self.prompt_name, arguments=arguments)

    async def close(self) -> None:
        """End the MCP session (a stdio server process is stopped)."""
        await self._mcp_session_manager.close()
