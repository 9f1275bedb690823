"""LlmRequest: what the flow sends to a model (history, config, tools)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, SkipValidation

from adk_runtime.events._cache_metadata import CacheMetadata
from adk_runtime.models._context_cache_config import ContextCacheConfig
from adk_runtime.models._declared_tool import DeclaredTool
from adk_runtime.models._service_tier import ServiceTier

__all__ = ["LlmRequest"]


class LlmRequest(BaseModel):
    """A request to a model.

    Attributes:
        model: The model name, filled in by the agent.
        contents: The conversation as the model sees it.
        config: Generation settings; ``system_instruction`` holds the rendered instruction
            and ``tools`` the function declarations.
        tools_dict: The tools the model may call, by name (never sent to the model): the
            ``BaseTool`` objects, typed here by what the request reads of them
            (``models._declared_tool.DeclaredTool``) and kept as given.
        cache_config: The app's context caching settings (None: no caching).
        cache_metadata: The cache the agent's last model response used or fingerprinted,
            from the session's events (what the model may reuse).
        cacheable_contents_token_count: The prompt tokens of the agent's last model request,
            as the model reported them (whether a cache is worth making).
        previous_interaction_id: For a model on Gemini's Interactions API: the interaction
            this request continues (the agent's last one in the session), so only the new
            contents are sent.
        service_tier: For a model on the Interactions API: the serving tier
            (``RunConfig.service_tier``).
    """

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    model: str | None = None
    contents: list[types.Content] = Field(default_factory=list)
    config: types.GenerateContentConfig = Field(default_factory=types.GenerateContentConfig)
    tools_dict: SkipValidation[dict[str, DeclaredTool]] = Field(default_factory=dict, exclude=True)
    cache_config: ContextCacheConfig | None = None
    cache_metadata: CacheMetadata | None = None
    cacheable_contents_token_count: int | None = None
    previous_interaction_id: str | None = None
    service_tier: ServiceTier | str | None = None
    _is_managed_agent: bool = PrivateAttr(default=False)
    """Set by ``ManagedAgent`` while it asks its built-in tools for their declarations: the
    hosted agent runs Gemini, so the tools declare themselves without a model name."""

    def append_instructions(self, instructions: list[str] | types.Content) -> list[types.Content]:
        """Add instructions to ``config.system_instruction``, as paragraphs.

        A list of strings adds each non-empty one. A ``types.Content`` adds its text parts;
        each of its inline-data and file-data parts is named by a reference in the system
        instruction and sent as a user content of its own (the reference and the data),
        appended to ``contents`` and returned, since a system instruction holds text only.
        A string system instruction grows by paragraphs; a ``Content``, ``Part`` or list of
        parts grows by a text part.

        Args:
            instructions: Strings, or the content whose parts to add.

        Returns:
            The user contents made from non-text parts (empty for strings).

        Raises:
            TypeError: ``instructions`` is neither a list of strings nor a ``Content``, or the
                system instruction is of a type that cannot be extended (e.g. a dict).
        """
        if isinstance(instructions, types.Content):
            texts, attached = _split_instruction(instructions)
        elif isinstance(instructions, list) and all(isinstance(text, str) for text in instructions):
            texts, attached = [text for text in instructions if text], []
        else:
            raise TypeError(
                "append_instructions takes a list of str or a types.Content, not "
                f"{type(instructions).__name__}."
            )
        if texts:
            self.config.system_instruction = _extended(
                self.config.system_instruction, "\n\n".join(texts)
            )
        self.contents.extend(attached)
        return attached

    def _append_dynamic_instructions(self, instructions: list[str]) -> None:
        """Add instructions a tool computed for this request (google-adk's private name).

        As google-adk does by default, they join the system instruction.
        """
        self.append_instructions(instructions)

    def set_output_schema(self, output_schema: Any = None, *, base_model: Any = None) -> None:
        """Ask for JSON following ``output_schema`` (the config's ``response_schema``).

        ``output_schema`` is a pydantic model, ``list[...]``, a JSON-schema dict or a
        ``types.Schema``; ``response_mime_type`` becomes ``application/json``.
        ``base_model`` is google-adk's older name for it.

        Raises:
            ValueError: Neither is given.
        """
        schema = output_schema if output_schema is not None else base_model
        if schema is None:
            raise ValueError("set_output_schema needs output_schema (the schema to answer in).")
        self.config.response_schema = schema
        self.config.response_mime_type = "application/json"

    def append_tools(self, tools: Sequence[DeclaredTool]) -> None:
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


def _extended(current: Any, text: str) -> Any:
    """``current`` (a system instruction) with ``text`` added as its last paragraph."""
    if current is None or current == "":
        return text
    if isinstance(current, str):
        return f"{current}\n\n{text}"
    if isinstance(current, types.Content):
        return current.model_copy(update={"parts": [*(current.parts or []), types.Part(text=text)]})
    if isinstance(current, types.Part):
        return [current, types.Part(text=text)]
    if isinstance(current, list):
        return [*current, types.Part(text=text)]
    raise TypeError(
        f"Cannot add instructions to a system_instruction of type {type(current).__name__}; "
        "set it to a str, a types.Content or a list of parts."
    )


def _split_instruction(content: types.Content) -> tuple[list[str], list[types.Content]]:
    """The texts of ``content`` for the system instruction, and its data parts as contents.

    Each inline-data or file-data part becomes a reference line among the texts (numbered in
    order, with its display name, URI and MIME type when known) and a user content holding a
    line with the same reference, then the part.
    """
    texts: list[str] = []
    attached: list[types.Content] = []
    for part in content.parts or []:
        if part.text:
            texts.append(part.text)
            continue
        data = part.inline_data or part.file_data
        if data is None:
            continue
        kind = "inline_data" if part.inline_data is not None else "file_data"
        reference = f"{kind}_{len(attached)}"
        details = [f"name {data.display_name!r}"] if data.display_name else []
        if isinstance(data, types.FileData) and data.file_uri:
            details.append(f"uri {data.file_uri}")
        if data.mime_type:
            details.append(f"MIME type {data.mime_type}")
        described = f" ({'; '.join(details)})" if details else ""
        texts.append(f"[Attached {kind.replace('_', ' ')} {reference}{described}: see below]")
        note = types.Part(text=f"Attachment {reference} of the system instruction:")
        attached.append(types.Content(role="user", parts=[note, part.model_copy()]))
    return texts, attached
