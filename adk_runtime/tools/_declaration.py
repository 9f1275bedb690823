"""Build a function's declaration and argument model from its signature and docstring."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from typing import Any

import pydantic
from google.genai import types

from adk_runtime.features import FeatureName, is_feature_enabled

__all__ = ["Signature", "function_declaration"]

CONTEXT_PARAMETER = "tool_context"


class Signature:
    """What the model sees of a Python function, and how its arguments are validated.

    A parameter named ``tool_context`` (or annotated with ``ToolContext``) is injected by the
    runtime and never shown to the model. ``*args`` / ``**kwargs`` are not offered.
    """

    def __init__(self, func: Callable[..., Any], name: str, description: str) -> None:
        """Read ``func``'s signature and type hints."""
        self.name = name
        self.description = description
        self.wants_context = False
        hints = _type_hints(func)
        fields: dict[str, Any] = {}
        for param in inspect.signature(func).parameters.values():
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                continue
            annotation = hints.get(param.name, Any)
            if param.name == CONTEXT_PARAMETER or _is_tool_context(annotation):
                self.wants_context = True
                self.context_name = param.name
                continue
            default = ... if param.default is param.empty else param.default
            fields[param.name] = (annotation, default)
        self.arguments: type[pydantic.BaseModel] = pydantic.create_model(
            f"{name}_arguments",
            __config__=pydantic.ConfigDict(arbitrary_types_allowed=True),
            **fields,
        )

    def declaration(self) -> types.FunctionDeclaration:
        """The google-genai declaration (parameters as a JSON schema)."""
        schema: dict[str, Any] | None = None
        if self.arguments.model_fields:
            schema = self.arguments.model_json_schema()
            schema.pop("title", None)
            for prop in schema.get("properties", {}).values():
                if isinstance(prop, dict):
                    prop.pop("title", None)
        return function_declaration(self.name, self.description, schema)

    def missing(self, args: dict[str, Any]) -> list[str]:
        """The required parameters (no default value) that ``args`` leaves out, in order."""
        fields = self.arguments.model_fields
        return [name for name, field in fields.items() if field.is_required() and name not in args]

    def validate(self, args: dict[str, Any]) -> dict[str, Any]:
        """Return the keyword arguments for ``args`` (coerced to the annotated types).

        Raises:
            pydantic.ValidationError: An argument is missing or of the wrong type.
        """
        known = {key: value for key, value in args.items() if key in self.arguments.model_fields}
        validated = self.arguments.model_validate(known)
        return {name: getattr(validated, name) for name in self.arguments.model_fields}


def function_declaration(
    name: str, description: str | None, schema: dict[str, Any] | None
) -> types.FunctionDeclaration:
    """A declaration with ``schema`` as its parameters, in the form the switches ask for.

    ``FeatureName.JSON_SCHEMA_FOR_FUNC_DECL`` on (the default): ``parameters_json_schema``.
    Off: ``parameters``, the schema as a google-genai ``types.Schema`` (definitions resolved).
    """
    if schema is None or is_feature_enabled(FeatureName.JSON_SCHEMA_FOR_FUNC_DECL):
        return types.FunctionDeclaration(
            name=name, description=description, parameters_json_schema=schema
        )
    parameters = types.Schema.from_json_schema(json_schema=types.JSONSchema.model_validate(schema))
    return types.FunctionDeclaration(name=name, description=description, parameters=parameters)


def _type_hints(func: Callable[..., Any]) -> dict[str, Any]:
    target = func if inspect.isfunction(func) or inspect.ismethod(func) else type(func).__call__
    try:
        return typing.get_type_hints(target, include_extras=True)
    except (NameError, TypeError):
        return {}


def _is_tool_context(annotation: Any) -> bool:
    from adk_runtime.tools.tool_context import ToolContext

    return inspect.isclass(annotation) and issubclass(annotation, ToolContext)
