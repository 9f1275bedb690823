"""google-adk's declaration helpers, and FunctionTool's argument preparation."""

from __future__ import annotations

from enum import Enum
from typing import Any

import pydantic
import pytest
from google.genai import types

from adk_runtime.agents.context import Context
from adk_runtime.features import FeatureName
from adk_runtime.features._feature_registry import temporary_feature_override
from adk_runtime.tools import FunctionTool
from adk_runtime.tools._automatic_function_calling_util import (
    build_function_declaration,
    from_function_with_options,
)
from adk_runtime.tools._function_tool_declarations import (
    build_function_declaration_with_json_schema,
)
from adk_runtime.tools._gemini_schema_util import (
    _sanitize_schema_formats_for_gemini,
    _to_gemini_schema,
    _to_snake_case,
)
from adk_runtime.utils.variant_utils import GoogleLLMVariant


class Size(Enum):
    SMALL = "s"
    LARGE = "l"


class Item(pydantic.BaseModel):
    sku: str
    count: int = 1


class Other(pydantic.BaseModel):
    code: int


def order(
    customer: str, items: list[Item], size: Size = Size.SMALL, note: str | None = None
) -> str:
    """Place an order."""
    return customer


def _params(declaration: types.FunctionDeclaration | None) -> dict[str, Any]:
    assert declaration is not None
    schema = declaration.parameters_json_schema
    assert isinstance(schema, dict)
    return schema


def test_snake_case_handles_camel_case_acronyms_and_spaces() -> None:
    assert [_to_snake_case(t) for t in ("maxItems", "HTTPServer", "REST API", "__x__")] == [
        "max_items",
        "http_server",
        "rest_api",
        "x",
    ]


def test_gemini_sanitizer_drops_what_gemini_rejects() -> None:
    schema = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "when": {"type": "string", "format": "date-time"},
            "mail": {"type": "string", "format": "email"},
            "either": {"oneOf": [{"type": "integer", "format": "int64"}, {"type": "null"}]},
        },
        "x-vendor": 1,
    }
    assert _sanitize_schema_formats_for_gemini(schema) == {
        "type": "object",
        "properties": {
            "when": {"type": "string", "format": "date-time"},
            "mail": {"type": "string"},
            "either": {"any_of": [{"type": "integer", "format": "int64"}, {"type": "null"}]},
        },
    }


def test_to_gemini_schema_resolves_references_and_stops_at_cycles() -> None:
    schema = {
        "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}},
        "type": "object",
        "properties": {"head": {"$ref": "#/$defs/Node"}},
    }
    gemini = _to_gemini_schema(schema)
    assert gemini is not None
    assert gemini.properties is not None
    head = gemini.properties["head"]
    assert head.type == types.Type.OBJECT
    assert head.properties is not None
    assert head.properties["next"].type == types.Type.OBJECT
    assert _to_gemini_schema(None) is None
    with pytest.raises(TypeError):
        _to_gemini_schema([])  # type: ignore[arg-type]


def test_json_schema_declaration_is_the_validation_models_schema() -> None:
    declaration = build_function_declaration_with_json_schema(order)
    schema = _params(declaration)
    assert schema["title"] == "orderParams"
    assert schema["required"] == ["customer", "items"]
    assert schema["properties"]["size"]["default"] == "s"
    assert declaration.response_json_schema == {"type": "string"}
    assert declaration.description == "Place an order."


def test_vertex_ai_gets_nullable_instead_of_a_null_branch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
    schema = _params(build_function_declaration_with_json_schema(order))
    note = schema["properties"]["note"]
    assert note["type"] == "string"
    assert note["nullable"] is True
    assert "anyOf" not in note


def test_schema_form_declares_each_parameter_and_the_response_for_vertex() -> None:
    declaration = from_function_with_options(order, GoogleLLMVariant.VERTEX_AI)
    parameters = declaration.parameters
    assert parameters is not None
    assert parameters.properties is not None
    assert parameters.required == ["customer", "items"]
    assert parameters.properties["size"].enum == ["s", "l"]
    assert parameters.properties["size"].default == "s"
    assert parameters.properties["note"].nullable is True
    assert declaration.response == types.Schema(type=types.Type.STRING)
    assert from_function_with_options(order, GoogleLLMVariant.GEMINI_API).response is None


def test_schema_form_refuses_a_default_that_does_not_fit() -> None:
    def bad(size: Size = "medium") -> None:  # type: ignore[assignment]
        """Never called."""

    with pytest.raises(ValueError, match="size"):
        from_function_with_options(bad)


def test_one_builder_serves_both_forms_and_drops_ignored_parameters() -> None:
    def lookup(query: str, secret: str, ctx: Context) -> str:
        """Look something up."""
        return query

    on = build_function_declaration(lookup, ignore_params=["secret"])
    assert set(_params(on)["properties"]) == {"query"}
    with temporary_feature_override(FeatureName.JSON_SCHEMA_FOR_FUNC_DECL, False):
        off = build_function_declaration(lookup, ignore_params=["secret", "ctx"])
    assert off.parameters is not None
    assert off.parameters.properties is not None
    assert set(off.parameters.properties) == {"query"}


def test_function_tool_detects_a_context_parameter_of_any_name() -> None:
    def lookup(query: str, ctx: Context) -> str:
        return query

    tool = FunctionTool(lookup)
    assert tool._context_param_name == "ctx"
    assert tool._ignore_params == ["ctx", "input_stream"]
    declaration = tool._get_declaration()
    assert declaration is not None
    assert set(_params(declaration)["properties"]) == {"query"}


def pick(entity: Item | Other, many: list[Item], count: int = 0, extra: Any = None) -> str:
    return type(entity).__name__


def test_preprocess_args_converts_what_fits_and_keeps_the_rest() -> None:
    tool = FunctionTool(pick)
    item = Item(sku="a")
    processed = tool._preprocess_args(
        {"entity": {"code": 7}, "many": [{"sku": "b"}, item], "count": 3.0, "unknown": 1}
    )
    assert processed["entity"] == Other(code=7)
    assert processed["many"][0] == Item(sku="b")
    assert processed["many"][1] is item
    assert processed["count"] == 3
    assert type(processed["count"]) is int
    assert processed["unknown"] == 1
    kept = tool._preprocess_args({"entity": "nonsense", "count": 2.5})
    assert kept == {"entity": "nonsense", "count": 2.5}


class _Shouting(FunctionTool):
    def _preprocess_args(self, args: dict[str, Any]) -> dict[str, Any]:
        return {
            key: value.upper() if isinstance(value, str) else value for key, value in args.items()
        }


async def test_run_async_validates_what_preprocess_args_returns() -> None:
    def echo(text: str) -> str:
        return text

    assert await _Shouting(echo).run_async(args={"text": "hi"}, tool_context=None) == "HI"  # type: ignore[arg-type]


def test_load_memory_declares_its_query_without_schema_titles() -> None:
    from adk_runtime.tools.load_memory_tool import load_memory_tool

    declaration = load_memory_tool._get_declaration()
    assert declaration is not None
    assert declaration.parameters_json_schema == {
        "type": "object",
        "properties": {"query": {"type": "string"}},
        "required": ["query"],
    }
