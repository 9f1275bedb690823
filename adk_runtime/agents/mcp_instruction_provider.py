"""McpInstructionProvider: an agent's instruction taken from an MCP server's prompt."""

from __future__ import annotations

import sys
from typing import Any, TextIO

from adk_runtime.agents.readonly_context import ReadonlyContext

__all__ = ["McpInstructionProvider"]


class McpInstructionProvider:
    """Use as ``LlmAgent(instruction=McpInstructionProvider(params, "prompt_name"))``.

    Before each model call it fetches the named prompt from the server, filling the
    prompt's arguments from the session state keys of the same names, and joins the text
    of its messages. Needs the ``mcp`` extra. Call :meth:`close` when done.
    """

    def __init__(self, connection_params: Any, prompt_name: str, errlog: TextIO = sys.stderr):
        """Fetch prompt ``prompt_name`` from the server ``connection_params`` names.

        Raises:
            ConfigurationError: The MCP SDK is not installed (the ``mcp`` extra).
        """
        from adk_runtime.tools.mcp_tool.mcp_session_manager import MCPSessionManager

        self.prompt_name = prompt_name
        self._mcp_session_manager = MCPSessionManager(connection_params, errlog=errlog)

    async def __call__(self, context: ReadonlyContext) -> str:
        """The prompt's text for the current state.

        Raises:
            ValueError: The server returned no message for the prompt.
        """

        async def fetch(session: Any) -> Any:
            listed = await session.list_prompts()
            prompt = next((p for p in listed.prompts if p.name == self.prompt_name), None)
            wanted = {argument.name for argument in (prompt.arguments or [])} if prompt else set()
            arguments = {key: str(value) for key, value in context.state.items() if key in wanted}
            return await session.get_prompt(self.prompt_name, arguments=arguments)

        result = await self._mcp_session_manager.run(fetch)
        texts = [
            text
            for message in result.messages or []
            if isinstance(text := getattr(message.content, "text", None), str)
        ]
        if not texts:
            raise ValueError(f"Failed to load MCP prompt {self.prompt_name!r}.")
        return "".join(texts)

    async def close(self) -> None:
        """End the MCP session (a stdio server process is stopped)."""
        await self._mcp_session_manager.close()
