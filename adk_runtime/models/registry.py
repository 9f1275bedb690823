"""LLMRegistry: resolve a model name (e.g. ``"gemini-2.5-flash"``) to a model class."""

from __future__ import annotations

import re
from functools import lru_cache

from adk_runtime.errors import ConfigurationError
from adk_runtime.models.base_llm import BaseLlm

__all__ = ["LLMRegistry"]


class LLMRegistry:
    """Model classes by the regular expressions of the names they serve."""

    _registry: dict[str, type[BaseLlm]] = {}

    @staticmethod
    def register(llm_cls: type[BaseLlm]) -> None:
        """Serve every name matching ``llm_cls.supported_models()`` with ``llm_cls``."""
        for pattern in llm_cls.supported_models():
            LLMRegistry._registry[pattern] = llm_cls
        _resolve_cached.cache_clear()

    @staticmethod
    def resolve(model: str) -> type[BaseLlm]:
        """Return the class serving ``model``.

        Raises:
            ConfigurationError: No registered class serves that name.
        """
        return _resolve_cached(model)

    @staticmethod
    def new_llm(model: str) -> BaseLlm:
        """Build the model called ``model``."""
        return LLMRegistry.resolve(model)(model=model)


@lru_cache(maxsize=64)
def _resolve_cached(model: str) -> type[BaseLlm]:
    for pattern, llm_cls in LLMRegistry._registry.items():
        if re.fullmatch(pattern, model):
            return llm_cls
    raise ConfigurationError(
        f"No model class serves {model!r}. Pass a BaseLlm instance as the agent's model, or "
        "register a class with LLMRegistry.register."
    )
