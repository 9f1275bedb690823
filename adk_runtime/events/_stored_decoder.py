"""A faster validator for events read back from storage, equal in result to the normal one.

Decoding a stored event is mostly google-genai's work: every ``Part`` runs a Python
``__init__`` of its own (for its positional-argument form, which stored JSON never uses) that
validates the part a second time, and every google-genai model runs a ``mode="before"``
validator that only logs type mismatches between *model instances* (JSON holds none). Together
they are about two thirds of the cost of reading a conversation back.

:func:`build` compiles ``Event``'s own core schema a second time without those two steps, so
pydantic-core builds the same classes from the same fields (every other validator, ours
included, stays). It also ignores fields it does not know, where the models refuse them:
an event written by a newer version (a replica already upgraded, during a rolling upgrade)
reads back here without them instead of making its whole session unreadable.

pydantic-core reuses a class's compiled validator when the class has one, so the classes'
validators are set aside while this one compiles — once, when this module is imported — and
put back at once.

It is used only for stored JSON (``event_from_stored``), and only after a self-check: sample
events of every shape decode equal, with the same fields set, through both validators; if
anything differs (a google-genai version whose ``__init__`` matters), :func:`build` returns
None and the normal validator is used.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import pydantic
from google.genai import types
from pydantic_core import SchemaValidator

__all__ = ["build"]

_GENAI_MODULE_PREFIX = "google.genai"
_MISMATCH_CHECK = "_check_field_type_mismatches"


def build(model: type[pydantic.BaseModel], samples: list[str]) -> SchemaValidator | None:
    """The stored-JSON validator for ``model``, or None when it would not decode alike.

    None too when anything about building it fails (a pydantic or google-genai version whose
    schemas look otherwise): the normal validator is then used, only slower.
    """
    try:
        schema = _strip(model.__pydantic_core_schema__)
        validator = _compile(schema, list(_model_classes(schema)))
        for sample in samples:
            if not _alike(model.model_validate_json(sample), validator.validate_json(sample)):
                return None
    except Exception:  # any failure means: use the normal validator
        return None
    return validator


def sample_payloads(event_type: type[pydantic.BaseModel]) -> list[str]:
    """Stored forms of events with every kind of part, for :func:`build`'s self-check."""
    parts = [
        types.Part(text="hello", thought=True, thought_signature=b"\x00sig"),
        types.Part(function_call=types.FunctionCall(id="c1", name="f", args={"a": [1, 2.5]})),
        types.Part(
            function_response=types.FunctionResponse(id="c1", name="f", response={"ok": True})
        ),
        types.Part(inline_data=types.Blob(mime_type="image/png", data=b"\x89PNG")),
        types.Part(file_data=types.FileData(mime_type="text/plain", file_uri="gs://b/o")),
        types.Part(
            executable_code=types.ExecutableCode(language=types.Language.PYTHON, code="1+1")
        ),
        types.Part(
            code_execution_result=types.CodeExecutionResult(outcome=types.Outcome.OUTCOME_OK)
        ),
    ]
    content = types.Content(role="model", parts=parts)
    event = event_type.model_validate(
        {
            "author": "agent",
            "invocation_id": "inv",
            "content": content,
            "actions": {
                "state_delta": {"k": base64.b64encode(b"v").decode(), "n": None},
                "route": ["next", 2, True],
            },
            "node_info": {"path": "wf@1/node@2", "output_for": ["wf@1"], "message_as_output": True},
            "usage_metadata": {"prompt_token_count": 3, "total_token_count": 5},
            "avg_logprobs": -0.25,
            "logprobs_result": {
                "chosen_candidates": [{"token": "hello", "token_id": 7, "log_probability": -0.25}],
                "top_candidates": [
                    {"candidates": [{"token": "hello", "token_id": 7, "log_probability": -0.25}]}
                ],
                "log_probability_sum": -0.25,
            },
            "cache_metadata": {
                "cache_name": "cachedContents/c1",
                "expire_time": 1.5,
                "fingerprint": "f",
                "invocations_used": 1,
                "contents_count": 2,
                "created_at": 0.5,
            },
        }
    )
    summary = event_type.model_validate(
        {
            "author": "user",
            "invocation_id": "inv-summary",
            "actions": {
                "compaction": {
                    "start_timestamp": 1.5,
                    "end_timestamp": 2.5,
                    "compacted_content": {"role": "model", "parts": [{"text": "summary"}]},
                }
            },
        }
    )
    return [item.model_dump_json(by_alias=True, exclude_none=True) for item in (event, summary)]


def _strip(node: Any) -> Any:
    """A copy of a core schema without google-genai's custom ``__init__`` and mismatch check."""
    if isinstance(node, list):
        return [_strip(item) for item in node]
    if not isinstance(node, dict):
        return node
    if node.get("type") == "function-before" and _is_mismatch_check(node.get("function")):
        return _strip(node["schema"])
    copied = {key: _strip(value) for key, value in node.items()}
    if copied.get("type") == "model" and _is_genai(copied.get("cls")):
        copied["custom_init"] = False
    if copied.get("type") == "model" and isinstance(copied.get("config"), dict):
        # Forward compatibility: a field a newer version (of adk_runtime or google-genai)
        # stored is left out, not an unreadable event. New events are still checked strictly.
        copied["config"] = {**copied["config"], "extra_fields_behavior": "ignore"}
    return copied


def _is_mismatch_check(function: Any) -> bool:
    target = function.get("function") if isinstance(function, dict) else None
    target = getattr(target, "__func__", target)
    return getattr(target, "__name__", "") == _MISMATCH_CHECK and getattr(
        target, "__module__", ""
    ).startswith(_GENAI_MODULE_PREFIX)


def _is_genai(cls: Any) -> bool:
    return isinstance(cls, type) and cls.__module__.startswith(_GENAI_MODULE_PREFIX)


def _model_classes(node: Any) -> Iterator[type]:
    if isinstance(node, list):
        for item in node:
            yield from _model_classes(item)
    elif isinstance(node, dict):
        if node.get("type") == "model" and isinstance(node.get("cls"), type):
            yield node["cls"]
        for value in node.values():
            yield from _model_classes(value)


def _compile(schema: Any, classes: list[type]) -> SchemaValidator:
    # pydantic-core would reuse each class's own compiled validator (custom __init__ and all):
    # set them aside for the compilation only.
    aside = {cls: cls.__dict__.get("__pydantic_validator__") for cls in set(classes)}
    aside = {cls: v for cls, v in aside.items() if v is not None}
    try:
        for cls in aside:
            delattr(cls, "__pydantic_validator__")
        return SchemaValidator(schema)
    finally:
        for cls, validator in aside.items():
            cls.__pydantic_validator__ = validator  # type: ignore[attr-defined]


def _alike(expected: pydantic.BaseModel, got: Any) -> bool:
    if type(got) is not type(expected) or got != expected:
        return False
    return bool(_fields_set(expected) == _fields_set(got))


def _fields_set(value: Any) -> Any:
    if isinstance(value, pydantic.BaseModel):
        fields = {name: _fields_set(getattr(value, name)) for name in value.model_fields_set}
        return (type(value), fields)
    if isinstance(value, list):
        return [_fields_set(item) for item in value]
    if isinstance(value, dict):
        return {key: _fields_set(item) for key, item in value.items()}
    return value
