"""LlmRequest: what the flow sends to a model (history, config, tools)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field

from adk_runtime.events._cache_metadata import CacheMetadata
from adk_runtime.models._context_cache_config import ContextCacheConfig

if TYPE_CHECKING:
    from adk_runtime.tools.base_tool import BaseTool

__all__ = ["LlmRequest"]


class LlmRequest(BaseModel):
    """A request to a model.

    Attributes:
        model: The model name, filled in by the agent.
        contents: The conversation as the model sees it.
        config: Generation settings; ``system_instruction`` holds the rendered instruction
            and ``tools`` the function declarations.
        tools_dict: The tools the model may call, by name (never sent to the model).
        cache_config: The app's context caching settings (None: no caching).
        cache_metadata: The cache the agent's last model response used or fingerprinted,
            from the session's events (what the model may reuse).
        cacheable_contents_token_count: The prompt tokens of the agent's last model request,
            as the model reported them (whether a cache is worth making).
    """

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    model: str | None = None
    contents: list[types.Content] = Field(default_factory=list)
    config: types.GenerateContentConfig = Field(default_factory=types.GenerateContentConfig)
    tools_dict: dict[str, Any] = Field(default_factory=dict, exclude=True)
    cache_config: ContextCacheConfig | None = None
    cache_metadata: CacheMetadata | None = None
    cacheable_contents_token_count: int | None = None

    def append_instructions(self, instructions: list[str]) -> None:
        """Add paragraphs to ``config.system_instruction``."""
        texts = [text for text in instructions if text]
        if not texts:
            return
        current = self.config.system_instruction
        if current is None or current == "":
            self.config.system_instruction = "\n\n".join(texts)
        elif isinstance(current, str):
            self.config.system_instruction = "\n\n".join([current, *texts])
        else:
            raise TypeError("system_instruction must be a string to append instructions to it.")

    def _append_dynamic_instructions(self, instructions: list[str]) -> None:
        """Add instructions a tool computed for this request (google-adk's private name).

        As google-adk does by default, they join the system instruction.
        """
        self.append_instructions(instructions)

    def set_output_schema(self, output_schema: Any) -> None:
        """Ask for JSON following ``output_schema`` (the config's ``response_schema``).

        ``output_schema`` is a pydantic model, ``list[...]``, a JSON-schema dict or a
        ``types.Schema``; ``response_mime_type`` becomes ``application/json``.
        """
        self.config.response_schema = output_schema
        self.config.response_mime_type = "application/json"

    def append_tools(self, tools: list[BaseTool]) -> None:
        """Offer ``tools`` to the model: declarations in the config, the tools in ``tools_dict``."""
        declarations: list[types.FunctionDeclaration] = []
        for tool in tools:
            declaration = tool._get_declaration()
            if declaration is None:
                continue
            declarations.append(declaration)
            self.tools_dict[tool.name] = tool
        if not declarations:
            return
        config_tools = list(self.config.tools or [])
        for entry in config_tools:
            if isinstance(entry, types.Tool) and entry.function_declarations is not None:
                entry.function_declarations.extend(declarations)
                break
        else:
            config_tools.append(types.Tool(function_declarations=declarations))
        self.config.tools = config_tools
