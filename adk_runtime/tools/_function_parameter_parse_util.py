"""A Python annotation as a google-genai ``Schema`` (google-adk's module name).

The older declaration form (``FeatureName.JSON_SCHEMA_FOR_FUNC_DECL`` off) spells each
parameter as a ``types.Schema``. This module covers the annotations that map onto it
directly; anything else raises ``ValueError`` and the caller falls back to pydantic's
JSON schema (:func:`json_schema_for`).
"""

from __future__ import annotations

import inspect
import json
import types as pytypes
from enum import Enum
from typing import Any, Literal, Union, get_args, get_origin

import pydantic
from google.genai import types

from adk_runtime.utils.variant_utils import GoogleLLMVariant

__all__ = ["_get_required_fields", "json_schema_for", "schema_for"]

_EMPTY = inspect.Parameter.empty
_SIMPLE: dict[Any, types.Type | None] = {
    str: types.Type.STRING,
    int: types.Type.INTEGER,
    float: types.Type.NUMBER,
    bool: types.Type.BOOLEAN,
    list: types.Type.ARRAY,
    dict: types.Type.OBJECT,
    None: types.Type.NULL,
    Any: None,  # no type: any value
}
_UNIONS = (Union, pytypes.UnionType)


def _is_simple(annotation: Any) -> bool:
    try:
        return annotation in _SIMPLE
    except TypeError:  # an unhashable annotation
        return False


def _fits(value: Any, annotation: Any) -> bool:
    """Whether ``value`` is a valid default for ``annotation`` (None is checked elsewhere)."""
    if annotation is Any:
        return True
    if annotation is None:
        return value is None
    if _is_simple(annotation):
        return isinstance(value, annotation)
    origin, args = get_origin(annotation), get_args(annotation)
    if origin in _UNIONS:
        return any(_fits(value, arg) for arg in args)
    if origin is dict:
        return isinstance(value, dict)
    if origin is list:
        return isinstance(value, list) and all(
            any(_fits(item, arg) for arg in args) for item in value
        )
    if origin is tuple:
        return _fits_tuple(value, args)
    if origin is Literal:
        return value in args
    return False


def _fits_tuple(value: Any, args: tuple[Any, ...]) -> bool:
    if not isinstance(value, tuple):
        return False
    if len(args) == 2 and args[1] is Ellipsis:
        return all(_fits(item, args[0]) for item in value)
    return len(args) == len(value) and all(map(_fits, value, args))


def _enum_text(value: object, annotation: object) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value)
    except TypeError as exc:
        raise ValueError(f"{annotation}: member value {value!r} has no JSON form") from exc


class _Parser:
    """Turns annotations into ``Schema`` objects for one function and one API variant."""

    def __init__(self, variant: GoogleLLMVariant, func_name: str) -> None:
        self.variant = variant
        self.func_name = func_name

    def bad_default(self, name: str, annotation: Any, default: Any) -> ValueError:
        return ValueError(
            f"{self.func_name}: the default {default!r} of parameter {name!r} is not a "
            f"valid {annotation}."
        )

    def parse(self, name: str, annotation: Any, default: Any = _EMPTY) -> types.Schema:
        """The schema of one parameter (or field, or item) ``name: annotation = default``."""
        schema = self._parse(name, annotation, default)
        if self.variant is GoogleLLMVariant.GEMINI_API and schema.any_of:
            raise ValueError("The Gemini API takes no anyOf in a function declaration.")
        return schema

    def _parse(self, name: str, annotation: Any, default: Any) -> types.Schema:
        origin = get_origin(annotation)
        if _is_simple(annotation):
            schema = types.Schema(type=_SIMPLE[annotation])
        elif inspect.isclass(annotation) and issubclass(annotation, Enum):
            return self._enum(name, annotation, default)
        elif origin in _UNIONS:
            return self._union(name, annotation, default)
        elif origin is dict:
            schema = self._dict(name, annotation)
        elif origin is Literal:
            schema = self._literal(annotation)
        elif origin in (list, tuple):
            schema = self._array(name, annotation)
        elif inspect.isclass(annotation) and issubclass(annotation, pydantic.BaseModel):
            return self._model(name, annotation, default)
        else:
            return self._other(name, annotation)
        if default is not _EMPTY:
            if not _fits(default, annotation):
                raise self.bad_default(name, annotation, default)
            schema.default = default
        return schema

    def _enum(self, name: str, annotation: type[Enum], default: Any) -> types.Schema:
        values = [member.value for member in annotation]
        schema = types.Schema(
            type=types.Type.STRING, enum=[_enum_text(v, annotation) for v in values]
        )
        if default is not _EMPTY:
            value = default.value if isinstance(default, Enum) else default
            if value not in values:
                raise self.bad_default(name, annotation, default)
            assert schema.enum is not None
            schema.default = schema.enum[values.index(value)]
        return schema

    def _union(self, name: str, annotation: Any, default: Any) -> types.Schema:
        members = get_args(annotation)
        nullable = type(None) in members
        branches: list[types.Schema] = []
        seen: set[str] = set()
        for member in members:
            if member is type(None):
                continue
            branch = self.parse("item", member)
            key = branch.model_dump_json(exclude_none=True)
            if key not in seen:
                seen.add(key)
                branches.append(branch)
        if len(branches) == 1:
            schema = branches[0]
        else:
            schema = types.Schema(type=types.Type.OBJECT, any_of=branches)
        if nullable:
            schema.nullable = True
        if default is not _EMPTY and default is not None:
            if not _fits(default, annotation):
                raise self.bad_default(name, annotation, default)
            schema.default = default
        return schema

    def _dict(self, name: str, annotation: Any) -> types.Schema:
        schema = types.Schema(type=types.Type.OBJECT)
        args = get_args(annotation)
        # The Gemini API refuses additional_properties: there a typed dict is a plain object.
        if len(args) == 2 and self.variant is not GoogleLLMVariant.GEMINI_API:
            schema.additional_properties = self.parse(name, args[1])
        return schema

    def _literal(self, annotation: Any) -> types.Schema:
        args = get_args(annotation)
        if not all(isinstance(arg, str) for arg in args):
            raise ValueError(f"{annotation}: only Literal of strings can be declared.")
        return types.Schema(type=types.Type.STRING, enum=list(args))

    def _array(self, name: str, annotation: Any) -> types.Schema:
        args = get_args(annotation)
        length: int | None = None
        if get_origin(annotation) is list:
            item = args[0] if args else Any
        elif len(args) == 2 and args[1] is Ellipsis:
            item = args[0]
        elif args and all(arg == args[0] for arg in args):
            item, length = args[0], len(args)
        else:
            raise ValueError(f"{annotation}: a tuple must repeat one item type.")
        schema = types.Schema(type=types.Type.ARRAY, items=self.parse(name, item))
        if length is not None:
            schema.min_items = schema.max_items = length
        return schema

    def _model(self, name: str, model: type[pydantic.BaseModel], default: Any) -> types.Schema:
        fields = model.model_fields
        schema = types.Schema(
            type=types.Type.OBJECT,
            properties={key: self.parse(key, field.annotation) for key, field in fields.items()},
        )
        required = [key for key, field in fields.items() if field.is_required()]
        if required:
            schema.required = required
        if default is not _EMPTY and default is not None:
            schema.default = default
        return schema

    def _other(self, name: str, annotation: Any) -> types.Schema:
        from adk_runtime.core.tool_context import ToolContext

        if inspect.isclass(annotation) and issubclass(annotation, ToolContext):
            raise ValueError(
                f"{self.func_name}: parameter {name!r} takes the ToolContext; leave it out "
                "of the declaration (name it tool_context, or pass it in ignore_params)."
            )
        if annotation is None:
            return types.Schema(type=types.Type.OBJECT, nullable=True)
        raise ValueError(
            f"{self.func_name}: the type {annotation} of parameter {name!r} has no direct "
            "Schema form."
        )


def schema_for(
    variant: GoogleLLMVariant,
    name: str,
    annotation: Any,
    func_name: str,
    default: Any = _EMPTY,
) -> types.Schema:
    """The ``Schema`` of parameter ``name: annotation = default`` of ``func_name``.

    Raises:
        ValueError: The annotation has no direct ``Schema`` form, the default does not
            fit it, or (Gemini API) it would need ``anyOf``.
    """
    return _Parser(variant, func_name).parse(name, annotation, default)


def _tuples_as_arrays(schema: Any) -> Any:
    """``prefixItems`` (fixed tuples) as ``items`` (one item, or ``anyOf`` of them).

    ``types.Schema`` has neither ``prefixItems`` nor ``unevaluatedItems``.
    """
    if isinstance(schema, list):
        return [_tuples_as_arrays(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    result = {k: _tuples_as_arrays(v) for k, v in schema.items() if k != "unevaluatedItems"}
    prefix = result.pop("prefixItems", None)
    if isinstance(prefix, list) and prefix:
        result["items"] = prefix[0] if len(prefix) == 1 else {"anyOf": prefix}
    if result.get("items") is False:
        del result["items"]
    return result


def json_schema_for(annotation: Any) -> dict[str, Any]:
    """The pydantic JSON schema of ``annotation``, with tuples spelled as ``Schema`` allows."""
    if inspect.isclass(annotation) and issubclass(annotation, pydantic.BaseModel):
        adapter: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(annotation)
    else:
        adapter = pydantic.TypeAdapter(
            annotation, config=pydantic.ConfigDict(arbitrary_types_allowed=True)
        )
    result: dict[str, Any] = _tuples_as_arrays(adapter.json_schema())
    return result


def _get_required_fields(schema: types.Schema) -> list[str]:
    """The properties of ``schema`` that are neither nullable nor defaulted."""
    return [
        name
        for name, prop in (schema.properties or {}).items()
        if not prop.nullable and prop.default is None
    ]
