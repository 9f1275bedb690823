"""LLMRegistry: resolve a model name (e.g. ``"gemini-2.5-flash"``) to a model class."""

from __future__ import annotations

import importlib
import re
from functools import lru_cache

from adk_runtime.errors import ConfigurationError, ModelNotFoundError
from adk_runtime.models.base_llm import BaseLlm

__all__ = ["LLMRegistry"]

_LazyClass = tuple[str, str, str]
"""(module path, class name, extra that installs what the module needs)."""


class LLMRegistry:
    """Model classes by the regular expressions of the names they serve."""

    _registry: dict[str, type[BaseLlm] | _LazyClass] = {}

    @staticmethod
    def register(llm_cls: type[BaseLlm]) -> None:
        """Serve every name matching ``llm_cls.supported_models()`` with ``llm_cls``."""
        for pattern in llm_cls.supported_models():
            LLMRegistry._registry[pattern] = llm_cls
        _resolve_cached.cache_clear()

    @staticmethod
    def register_lazy(patterns: list[str], module: str, class_name: str, extra: str) -> None:
        """Serve names matching ``patterns`` with a class imported only when first needed.

        Args:
            patterns: Regular expressions of the model names.
            module: The module defining the class.
            class_name: The class's name in that module.
            extra: The adk-runtime extra that installs the module's dependencies (named in
                the error when they are missing).
        """
        for pattern in patterns:
            LLMRegistry._registry[pattern] = (module, class_name, extra)
        _resolve_cached.cache_clear()

    @staticmethod
    def resolve(model: str) -> type[BaseLlm]:
        """Return the class serving ``model``.

        ``"<class>:<model>"`` names the class outright, as in google-adk: the prefix is a
        registered class's name, with or without its ``Llm`` ending, in any case
        (``"gemini:gemini-2.5-flash"``, ``"lite:openai/gpt-4o"``, ``"Claude:claude-…"``). A
        prefix naming no registered class is part of the model name.

        Raises:
            ModelNotFoundError: No registered class serves that name (a ``ConfigurationError``
                and, as in google-adk, a ``ValueError``).
            ConfigurationError: The class's optional dependencies are not installed.
        """
        return _resolve_cached(model)

    @staticmethod
    def new_llm(model: str) -> BaseLlm:
        """Build the model called ``model`` (without a ``"<class>:"`` prefix naming its class)."""
        llm_cls = LLMRegistry.resolve(model)
        prefix, _, name = model.partition(":")
        if name and _names_class(prefix, llm_cls.__name__):
            return llm_cls(model=name)
        return llm_cls(model=model)


def _names_class(prefix: str, class_name: str) -> bool:
    """Whether ``prefix`` names the class ``class_name`` (``lite`` and ``LiteLlm`` name LiteLlm)."""
    wanted, full = prefix.lower(), class_name.lower()
    return wanted in (full, full.removesuffix("llm"))


def _load(entry: _LazyClass) -> type[BaseLlm]:
    module_name, class_name, extra = entry
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigurationError(
            f"{class_name} needs an optional dependency that is not installed "
            f"({exc.name or exc}): pip install 'adk-runtime[{extra}]'"
        ) from exc
    llm_cls: type[BaseLlm] = getattr(module, class_name)
    return llm_cls


@lru_cache(maxsize=64)
def _resolve_cached(model: str) -> type[BaseLlm]:
    prefix, _, name = model.partition(":")
    if name:
        for entry in LLMRegistry._registry.values():
            class_name = entry[1] if isinstance(entry, tuple) else entry.__name__
            if _names_class(prefix, class_name):
                return _load(entry) if isinstance(entry, tuple) else entry
    for pattern, entry in LLMRegistry._registry.items():
        if re.fullmatch(pattern, model):
            return _load(entry) if isinstance(entry, tuple) else entry
    hint = (
        " A provider/model name is LiteLLM's: write it 'lite:<provider>/<model>' or pass "
        "LiteLlm(model=...) (pip install 'adk-runtime[litellm]')."
        if "/" in model
        else ""
    )
    raise ModelNotFoundError(
        f"No model class serves {model!r}. Pass a BaseLlm instance as the agent's model, or "
        f"register a class with LLMRegistry.register.{hint}"
    )
