"""Tools described for MCP: an ADK tool as an MCP ``Tool``, a Gemini schema as JSON Schema.

For serving tools over MCP (an ``MCPServer`` of your own, or :func:`to_mcp_server` for a
whole agent): :func:`adk_to_mcp_tool_type` gives a tool's MCP description, its input schema
taken from the tool's declaration (``parameters_json_schema`` as it is, or ``parameters``
converted by :func:`gemini_to_json_schema`).
"""

from __future__ import annotations

from typing import Any

from google.genai import types
from mcp import types as mcp_types

from adk_runtime.core.base_tool import BaseTool

__all__ = ["adk_to_mcp_tool_type", "gemini_to_json_schema"]

# Gemini field -> JSON Schema keyword, for every type and then for the one type it belongs to.
_ANY_TYPE = {
    "title": "title",
    "description": "description",
    "default": "default",
    "enum": "enum",
    "format": "format",
    "example": "example",
}
_BY_TYPE: dict[types.Type, dict[str, str]] = {
    types.Type.STRING: {"pattern": "pattern", "min_length": "minLength", "max_length": "maxLength"},
    types.Type.NUMBER: {"minimum": "minimum", "maximum": "maximum"},
    types.Type.INTEGER: {"minimum": "minimum", "maximum": "maximum"},
    types.Type.ARRAY: {"min_items": "minItems", "max_items": "maxItems"},
    types.Type.OBJECT: {
        "required": "required",
        "min_properties": "minProperties",
        "max_properties": "maxProperties",
    },
}


def adk_to_mcp_tool_type(tool: BaseTool) -> mcp_types.Tool:
    """``tool`` as an MCP ``Tool``: its name, description and input JSON Schema (``{}`` if none)."""
    declaration = tool._get_declaration()
    schema: dict[str, Any] = {}
    if declaration is not None:
        if declaration.parameters_json_schema:
            schema = dict(declaration.parameters_json_schema)
        elif declaration.parameters is not None:
            schema = gemini_to_json_schema(declaration.parameters)
    return mcp_types.Tool(name=tool.name, description=tool.description, input_schema=schema)


def gemini_to_json_schema(gemini_schema: types.Schema) -> dict[str, Any]:
    """The JSON Schema for a google-genai ``Schema``, nested schemas included.

    The type is lower-cased (``"null"`` when unspecified); ``nullable`` is kept as
    ``"nullable": true``; the keywords that apply to the schema's type are renamed to their
    JSON Schema spelling (``min_length`` → ``minLength``, …).

    Raises:
        TypeError: ``gemini_schema`` is not a ``types.Schema``.
    """
    if not isinstance(gemini_schema, types.Schema):
        raise TypeError(
            f"gemini_to_json_schema takes a google.genai types.Schema, not {type(gemini_schema)}."
        )
    kind = gemini_schema.type
    result: dict[str, Any] = {
        "type": kind.value.lower() if kind and kind != types.Type.TYPE_UNSPECIFIED else "null"
    }
    if gemini_schema.nullable:
        result["nullable"] = True
    specific = _BY_TYPE.get(kind, {}) if kind is not None else {}
    for field, keyword in (_ANY_TYPE | specific).items():
        value = getattr(gemini_schema, field)
        if value is not None:
            result[keyword] = value
    if kind == types.Type.ARRAY and gemini_schema.items is not None:
        result["items"] = gemini_to_json_schema(gemini_schema.items)
    if kind == types.Type.OBJECT and gemini_schema.properties is not None:
        result["properties"] = {
            name: gemini_to_json_schema(schema) for name, schema in gemini_schema.properties.items()
        }
    if gemini_schema.any_of is not None:
        result["anyOf"] = [gemini_to_json_schema(schema) for schema in gemini_schema.any_of]
    return result
