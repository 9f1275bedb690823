"""Turn a JSON schema (OpenAPI 3.1 / draft 2020-12 or draft-07) into a Gemini ``Schema``.

google-adk's ``tools._gemini_schema_util``. Gemini accepts a subset of JSON schema: this
module resolves references, keeps only the keywords Gemini knows (written in snake_case),
drops the ``format`` values it rejects, and settles the ``type`` of every node.
"""

from __future__ import annotations

import json
import re
import urllib.parse
from typing import Any, Literal

import pydantic
from google.genai import types

from adk_runtime.utils.variant_utils import GoogleLLMVariant, get_google_llm_variant

__all__ = [
    "_dereference_schema",
    "_sanitize_schema_formats_for_gemini",
    "_to_gemini_schema",
    "_to_snake_case",
]


class _ExtendedJSONSchema(types.JSONSchema):
    """google-genai's ``JSONSchema`` plus Gemini's ``property_ordering``."""

    property_ordering: list[str] | None = pydantic.Field(
        default=None, description="The order in which the model should write the properties."
    )


# Keywords whose value is one subschema, a list of them, or a map of name -> subschema.
_ONE_SUBSCHEMA = frozenset({"items"})
_SUBSCHEMA_LISTS = frozenset({"any_of", "one_of"})
_SUBSCHEMA_MAPS = frozenset({"properties", "defs"})
# Gemini keeps these formats only; any other is dropped.
_KEPT_FORMATS = {"integer": {"int32", "int64"}, "number": {"int32", "int64"}}
_KEPT_STRING_FORMATS = frozenset({"date-time", "enum"})

_NON_WORD = re.compile(r"[^a-zA-Z0-9]+")
_LOWER_THEN_UPPER = re.compile(r"([a-z0-9])([A-Z])")
_ACRONYM_THEN_WORD = re.compile(r"([A-Z]+)([A-Z][a-z])")
_UNDERSCORES = re.compile(r"_+")
_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")


def _to_snake_case(text: str) -> str:
    """``text`` in snake_case: ``"lowerCamel"``, ``"UpperCamel"``, ``"REST API"`` all work.

    Runs of characters other than ASCII letters and digits become one underscore; a word
    boundary is placed before an upper-case letter that follows a lower-case letter or a
    digit, and before the last capital of an acronym followed by a word (``"HTMLParser"``
    -> ``"html_parser"``). Leading and trailing underscores are dropped.
    """
    text = _NON_WORD.sub("_", text)
    text = _LOWER_THEN_UPPER.sub(r"\1_\2", text)
    text = _ACRONYM_THEN_WORD.sub(r"\1_\2", text)
    return _UNDERSCORES.sub("_", text.lower()).strip("_")


def _settle_type(schema: dict[str, Any], *, keep_null: bool = False) -> dict[str, Any]:
    """Give ``schema`` one type (plus ``"null"`` when nullable) that Gemini accepts."""
    if not schema:
        schema["type"] = "object"
    declared = schema.get("type")
    if isinstance(declared, list):
        others = [name for name in declared if name != "null"]
        main = "array" if "array" in others else (others[0] if others else "object")
        schema["type"] = [main, "null"] if len(others) != len(declared) else main
    elif declared == "null" and not keep_null:
        schema["type"] = ["object", "null"]
    declared = schema.get("type")
    kinds = declared if isinstance(declared, list) else [declared]
    if "array" in kinds:
        schema.setdefault("items", {"type": "string"})
    main_kind = next((kind for kind in kinds if kind != "null"), None)
    if main_kind == "string" and isinstance(schema.get("enum"), list):
        # Gemini wants string enum members on a string field; null is carried by the type.
        schema["enum"] = [
            value if isinstance(value, str) else json.dumps(value)
            for value in schema["enum"]
            if value is not None
        ]
    return schema


def _kept_format(schema: dict[str, Any], value: Any) -> bool:
    declared = schema.get("type")
    if declared == "string":
        return value in _KEPT_STRING_FORMATS
    return isinstance(declared, str) and value in _KEPT_FORMATS.get(declared, ())


_KNOWN_KEYWORDS = frozenset(_ExtendedJSONSchema.model_fields) - {"additional_properties"}


def _keep_entry(result: dict[str, Any], key: str, value: Any, schema: dict[str, Any]) -> None:
    """Copy keyword ``key`` (snake_case) of ``schema`` into ``result`` as Gemini takes it."""
    if key in _ONE_SUBSCHEMA:
        result[key] = _sanitize_schema_formats_for_gemini(value)
    elif key in _SUBSCHEMA_LISTS:
        branches = [
            _sanitize_schema_formats_for_gemini(branch, preserve_null_type=True) for branch in value
        ]
        # Gemini has no one_of: both keywords collect into any_of, in order.
        result["any_of"] = [*result.get("any_of", []), *branches]
    elif key in _SUBSCHEMA_MAPS and value is not None:
        result[key] = {
            name: _sanitize_schema_formats_for_gemini(sub) for name, sub in value.items()
        }
    elif key == "format":
        if value and _kept_format(schema, value):
            result[key] = value
    elif key in _KNOWN_KEYWORDS and value is not None:
        result[key] = value


def _sanitize_schema_formats_for_gemini(schema: Any, preserve_null_type: bool = False) -> Any:
    """Keep only what Gemini accepts of a JSON schema, with keys in snake_case.

    Unknown keywords and ``additionalProperties`` are dropped, ``oneOf`` is widened to
    ``any_of``, a boolean schema becomes an open object, unsupported ``format`` values are
    removed, and every node gets a ``type``. Lists are sanitized item by item; other values
    are returned unchanged.

    Args:
        schema: A JSON schema (a dict), a list of them, or a boolean schema.
        preserve_null_type: Keep a bare ``{"type": "null"}`` as is (used inside unions)
            rather than widening it to a nullable object.

    Returns:
        The sanitized schema (a new object; ``schema`` is not changed).
    """
    if isinstance(schema, list):
        return [
            _sanitize_schema_formats_for_gemini(item, preserve_null_type=preserve_null_type)
            for item in schema
        ]
    if isinstance(schema, bool):
        return {"type": "object"}
    if not isinstance(schema, dict):
        return schema
    result: dict[str, Any] = {}
    for raw_key, value in schema.items():
        _keep_entry(result, _to_snake_case(raw_key), value, schema)
    return _settle_type(result, keep_null=preserve_null_type)


def _resolve_pointer(pointer: str, root: dict[str, Any]) -> object | None:
    """The node a ``#/a/b`` fragment points at in ``root``, or None."""
    if pointer == "#":
        return root
    if not pointer.startswith("#/"):
        return None
    node: object = root
    for raw in pointer[2:].split("/"):
        part = urllib.parse.unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict):
            if part not in node:
                return None
            node = node[part]
        elif isinstance(node, list) and _ARRAY_INDEX.fullmatch(part) and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def _dereference_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with every resolvable ``$ref`` written out in place.

    A reference is looked up as a JSON pointer first, then by its last segment in
    ``$defs`` (or draft-07 ``definitions``; ``$defs`` wins a tie). Keywords beside a
    ``$ref`` override the target's. A reference back into its own expansion becomes an
    open object that says so; one that cannot be resolved is left as it is. The definition
    blocks are removed from the result.

    Raises:
        TypeError: The result is not an object (a ``$ref`` at the root pointed elsewhere).
    """
    definitions = {**schema.get("definitions", {}), **schema.get("$defs", {})}

    def expand(node: object, open_refs: frozenset[str]) -> object:
        if isinstance(node, list):
            return [expand(item, open_refs) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" not in node:
            return {key: expand(value, open_refs) for key, value in node.items()}
        ref = node["$ref"]
        name = str(ref).rsplit("/", 1)[-1]
        if ref in open_refs:
            return {"type": "object", "description": f"Recursive reference to {name}"}
        target = _resolve_pointer(ref, schema)
        if target is None and isinstance(definitions.get(name), dict):
            target = definitions[name]
        if not isinstance(target, dict):
            return node
        siblings = {key: value for key, value in node.items() if key != "$ref"}
        return expand({**target, **siblings}, open_refs | {ref})

    expanded = expand(schema, frozenset())
    if not isinstance(expanded, dict):
        raise TypeError("A dereferenced JSON schema must still be an object.")
    for block in ("$defs", "definitions"):
        expanded.pop(block, None)
    return expanded


def _to_gemini_schema(openapi_schema: dict[str, Any] | None) -> types.Schema | None:
    """A Gemini ``Schema`` for an OpenAPI 3.1 / JSON schema dict (None for None).

    References are resolved, the schema is sanitized for Gemini, and google-genai converts
    it for the API the environment selects (``GOOGLE_GENAI_USE_VERTEXAI``).

    Raises:
        TypeError: ``openapi_schema`` is not a dict.
    """
    if openapi_schema is None:
        return None
    if not isinstance(openapi_schema, dict):
        raise TypeError("openapi_schema must be a dictionary")
    sanitized = _sanitize_schema_formats_for_gemini(_dereference_schema(openapi_schema))
    api: Literal["VERTEX_AI", "GEMINI_API"] = (
        "VERTEX_AI" if get_google_llm_variant() is GoogleLLMVariant.VERTEX_AI else "GEMINI_API"
    )
    return types.Schema.from_json_schema(
        json_schema=_ExtendedJSONSchema.model_validate(sanitized), api_option=api
    )
