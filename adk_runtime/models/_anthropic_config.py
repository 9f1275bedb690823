# The pydantic mypy plugin writes the __init__ of a GenerateContentConfig subclass with a
# name (PIL_Image) google-genai defines only when Pillow is installed:
# mypy: disable-error-code="name-defined"
"""AnthropicGenerateContentConfig: a generation config with Claude's reasoning effort."""

from __future__ import annotations

from typing import Literal

from google.genai import types
from pydantic import model_validator

__all__ = ["AnthropicGenerateContentConfig"]


class AnthropicGenerateContentConfig(types.GenerateContentConfig):
    """A generation config with Claude's reasoning ``effort``.

    Attributes:
        effort: ``"low"``, ``"medium"``, ``"high"``, ``"xhigh"`` or ``"max"``; sent as
            ``output_config.effort``. ``thinking_config.thinking_level`` is refused here:
            Claude has five effort levels, genai's enum four.
    """

    effort: Literal["low", "medium", "high", "xhigh", "max"] | None = None

    @model_validator(mode="after")
    def _no_thinking_level(self) -> AnthropicGenerateContentConfig:
        if self.thinking_config is not None and self.thinking_config.thinking_level is not None:
            raise ValueError(
                "Set `effort` instead of thinking_config.thinking_level for Claude models."
            )
        return self
