"""The YAML schema of an ``LlmAgent`` (``google.adk.agents.llm_agent_config``)."""

from __future__ import annotations

from typing import Literal

from google.genai import types
from pydantic import ConfigDict, model_validator

from adk_runtime.core._tool_configs import ToolConfig
from adk_runtime.core.base_agent_config import BaseAgentConfig
from adk_runtime.core.common_configs import CodeConfig

__all__ = ["LlmAgentConfig"]


class LlmAgentConfig(BaseAgentConfig):
    """An LLM agent file: the ``LlmAgent`` fields a YAML file can set, and nothing else.

    Attributes:
        agent_class: ``LlmAgent`` (the default when the key is left out).
        model: A model name (resolved through ``LLMRegistry``); unset inherits the nearest
            LLM ancestor's model or the default.
        model_code: The dotted path of a ``BaseLlm`` object built in Python (not with
            ``model``).
        instruction: The instruction, with ``{state_key}`` placeholders.
        static_instruction: Text or content sent verbatim.
        disallow_transfer_to_parent: As ``LlmAgent``.
        disallow_transfer_to_peers: As ``LlmAgent``.
        input_schema: The dotted path of a pydantic model.
        output_schema: The dotted path of a pydantic model (or another schema object).
        output_key: As ``LlmAgent``.
        include_contents: ``default`` or ``none``.
        tools: ``ToolConfig`` entries (built-in names or dotted paths).
        before_model_callbacks: Dotted paths of callbacks (likewise the other three).
        after_model_callbacks: Dotted paths of callbacks.
        before_tool_callbacks: Dotted paths of callbacks.
        after_tool_callbacks: Dotted paths of callbacks.
        generate_content_config: Generation settings, as a mapping.
    """

    model_config = ConfigDict(extra="forbid")

    agent_class: str = "LlmAgent"
    model: str | None = None
    model_code: CodeConfig | None = None
    instruction: str
    # google-adk's types.ContentUnion, without its PIL image (YAML cannot hold one)
    static_instruction: str | types.Content | types.Part | list[str | types.Part] | None = None
    disallow_transfer_to_parent: bool | None = None
    disallow_transfer_to_peers: bool | None = None
    input_schema: CodeConfig | None = None
    output_schema: CodeConfig | None = None
    output_key: str | None = None
    include_contents: Literal["default", "none"] = "default"
    tools: list[ToolConfig] | None = None
    before_model_callbacks: list[CodeConfig] | None = None
    after_model_callbacks: list[CodeConfig] | None = None
    before_tool_callbacks: list[CodeConfig] | None = None
    after_tool_callbacks: list[CodeConfig] | None = None
    generate_content_config: types.GenerateContentConfig | None = None

    @model_validator(mode="after")
    def _one_model_source(self) -> LlmAgentConfig:
        if self.model and self.model_code:
            raise ValueError(
                "Set one of `model` (a model name) or `model_code` (a BaseLlm object in "
                f"Python), not both: got model={self.model!r} and "
                f"model_code={self.model_code.name!r}."
            )
        return self
