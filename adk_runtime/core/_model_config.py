"""Check an LLM agent's ``generate_content_config`` as google-adk does."""

from __future__ import annotations

from typing import Any

from google.genai import types

__all__ = ["check_generate_content_config", "check_http_options", "misplaced_config_fields"]

# Settings with a field of their own on LlmAgent.
_OWNED = {
    "tools": "tools",
    "system_instruction": "instruction",
    "response_schema": "output_schema",
    "response_json_schema": "output_schema",
}

_WHAT = {"tools": "tools", "instruction": "instruction", "output_schema": "schema"}


def check_generate_content_config(
    config: types.GenerateContentConfig | None,
) -> types.GenerateContentConfig | None:
    """Return ``config``; raise ``ValueError`` for what has an LlmAgent field of its own.

    Raises:
        ValueError: ``tools``, ``system_instruction`` or ``response_schema`` is set in the
            config, or ``http_options.base_url`` (a transport setting of the model).
    """
    if config is None:
        return None
    for name, field in _OWNED.items():
        if getattr(config, name, None):
            what = _WHAT[field]
            raise ValueError(
                f"generate_content_config.{name} is not used. Move your {what} to "
                f"LlmAgent({field}=...)."
            )
    check_http_options(config.http_options, "generate_content_config.http_options")
    return config


def check_http_options(options: types.HttpOptions | None, where: str) -> None:
    """Refuse a ``base_url`` in per-agent or per-invocation HTTP options.

    Raises:
        ValueError: ``options.base_url`` is set (a transport setting of the model).
    """
    if options is not None and options.base_url:
        raise ValueError(
            f"{where}.base_url is not used: the base URL is a setting of the model "
            "(e.g. Gemini(model=..., base_url=...))."
        )


def misplaced_config_fields(data: Any, agent_fields: set[str]) -> None:
    """Raise ``ValueError`` when LlmAgent keyword arguments are generation settings.

    ``LlmAgent(temperature=0.2)`` names a ``GenerateContentConfig`` field: the error says to
    pass it in ``generate_content_config`` (or the agent's own field, for those it has).
    """
    if not isinstance(data, dict):
        return
    config_fields = set(types.GenerateContentConfig.model_fields)
    misplaced = [key for key in data if key not in agent_fields and key in config_fields]
    if not misplaced:
        return
    hints = []
    for key in misplaced:
        if key in _OWNED:
            hints.append(f"{key}: use LlmAgent({_OWNED[key]}=...)")
        else:
            hints.append(
                f"{key}: use generate_content_config=types.GenerateContentConfig({key}=...)"
            )
    raise ValueError("Not LlmAgent arguments: " + "; ".join(hints) + ".")
