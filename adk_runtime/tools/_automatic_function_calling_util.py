"""Declarations of Python functions for the model (google-adk's module name).

:func:`build_function_declaration` is the one entry point ``FunctionTool`` uses. With
``FeatureName.JSON_SCHEMA_FOR_FUNC_DECL`` on (the default) the declaration carries
pydantic's JSON schema (``_function_tool_declarations``); off, it carries google-genai
``Schema`` objects, built by :func:`from_function_with_options`.
"""

from __future__ import annotations

import collections.abc
import inspect
import logging
from collections.abc import Callable, Collection
from enum import Enum
from typing import Any, get_args, get_origin

import pydantic
from google.genai import types

from adk_runtime.features import FeatureName, is_feature_enabled
from adk_runtime.tools._declaration import callable_doc, callable_name, resolved_hints
from adk_runtime.tools._function_parameter_parse_util import (
    _get_required_fields,
    json_schema_for,
    schema_for,
)
from adk_runtime.tools._function_tool_declarations import (
    build_function_declaration_with_json_schema,
)
from adk_runtime.tools._gemini_schema_util import _sanitize_schema_formats_for_gemini
from adk_runtime.utils.variant_utils import GoogleLLMVariant

__all__ = ["build_function_declaration", "from_function_with_options"]

logger = logging.getLogger(__name__)

_EMPTY = inspect.Parameter.empty
_DECLARED_KINDS = (
    inspect.Parameter.POSITIONAL_ONLY,
    inspect.Parameter.POSITIONAL_OR_KEYWORD,
    inspect.Parameter.KEYWORD_ONLY,
)
_GENERATORS = (collections.abc.Generator, collections.abc.AsyncGenerator)


def build_function_declaration(
    func: Callable[..., Any] | type[pydantic.BaseModel],
    ignore_params: list[str] | None = None,
    variant: GoogleLLMVariant = GoogleLLMVariant.GEMINI_API,
) -> types.FunctionDeclaration:
    """The declaration of ``func`` (a callable or a pydantic model class) for ``variant``.

    Args:
        func: The function whose signature and docstring are declared, or a pydantic
            model class whose fields are the parameters.
        ignore_params: Parameters the model must not see (the context, say).
        variant: The API the declaration is for. A response schema is only sent to
            Vertex AI.

    Returns:
        In the form ``FeatureName.JSON_SCHEMA_FOR_FUNC_DECL`` selects.

    Raises:
        ValueError: (``Schema`` form) a parameter's type cannot be declared.
    """
    if is_feature_enabled(FeatureName.JSON_SCHEMA_FOR_FUNC_DECL):
        declaration = build_function_declaration_with_json_schema(func, ignore_params)
        if variant is not GoogleLLMVariant.VERTEX_AI:
            declaration.response_json_schema = None
        return declaration
    return _declare_with_schemas(func, variant, ignore_params or ())


def from_function_with_options(
    func: Callable[..., Any],
    variant: GoogleLLMVariant = GoogleLLMVariant.GEMINI_API,
) -> types.FunctionDeclaration:
    """``func``'s declaration with google-genai ``Schema`` parameters.

    For Vertex AI it also carries a ``response`` schema of the return type.

    Each parameter is declared directly where its type allows (primitives, lists, tuples
    of one type, dicts, enums, string literals, pydantic models, unions of these);
    otherwise every parameter is declared from pydantic's JSON schema instead.

    Raises:
        ValueError: A parameter's type cannot be declared either way, or a default does
            not fit its type.
    """
    return _declare_with_schemas(func, variant, ())


def _parameters(func: Callable[..., Any], ignore: Collection[str]) -> list[inspect.Parameter]:
    hints = resolved_hints(func)
    params = []
    for param in inspect.signature(func).parameters.values():
        if param.kind not in _DECLARED_KINDS or param.name in ignore:
            continue
        annotation = hints.get(param.name, param.annotation)
        if isinstance(annotation, str):
            raise NameError(f"{callable_name(func)}: cannot resolve the annotation {annotation!r}")
        params.append(param.replace(annotation=annotation))
    return params


def _from_json_schema(
    param: inspect.Parameter, variant: GoogleLLMVariant, func_name: str
) -> types.Schema:
    """The fallback: one parameter's ``Schema`` read from pydantic's JSON schema."""
    annotation: Any = Any if param.annotation is _EMPTY else param.annotation
    try:
        # The direct form checks an enum default; the fallback must refuse it too.
        if inspect.isclass(annotation) and issubclass(annotation, Enum):
            schema_for(variant, param.name, annotation, func_name, param.default)
        json_schema: Any = json_schema_for(annotation)
        if variant is GoogleLLMVariant.GEMINI_API:
            json_schema = _sanitize_schema_formats_for_gemini(json_schema)
        schema = types.Schema.model_validate(json_schema)
    except Exception as exc:
        raise ValueError(
            f"{func_name}: parameter {param.name!r} ({annotation}) cannot be declared for "
            "automatic function calling; simplify its type or write the declaration by hand."
        ) from exc
    if param.default is not _EMPTY:
        if param.default is None:
            schema.nullable = True
        else:
            schema.default = param.default
    return schema


def _parameter_schemas(
    params: list[inspect.Parameter], variant: GoogleLLMVariant, func_name: str
) -> dict[str, types.Schema]:
    try:
        return {
            p.name: schema_for(variant, p.name, p.annotation, func_name, p.default) for p in params
        }
    except ValueError:
        return {p.name: _from_json_schema(p, variant, func_name) for p in params}


def _description(func: Callable[..., Any]) -> str | None:
    # A routine's docstring goes out as written; other callables' are cleaned.
    if inspect.isroutine(func):
        return func.__doc__
    if inspect.isclass(func):
        return inspect.cleandoc(func.__doc__) if func.__doc__ else None
    return callable_doc(func) or None


def _declare_with_schemas(
    func: Callable[..., Any], variant: GoogleLLMVariant, ignore: Collection[str]
) -> types.FunctionDeclaration:
    func_name = callable_name(func)
    declaration = types.FunctionDeclaration(name=func_name, description=_description(func))
    properties = _parameter_schemas(_parameters(func, ignore), variant, func_name)
    if properties:
        parameters = types.Schema(type=types.Type.OBJECT, properties=properties)
        parameters.required = _get_required_fields(parameters)
        declaration.parameters = parameters
    if variant is GoogleLLMVariant.VERTEX_AI:
        declaration.response = _response_schema(func, variant, func_name)
    return declaration


def _response_schema(
    func: Callable[..., Any], variant: GoogleLLMVariant, func_name: str
) -> types.Schema | None:
    """The ``Schema`` of what ``func`` returns (a generator: what it yields)."""
    returned = resolved_hints(func).get("return", _EMPTY)
    if get_origin(returned) in _GENERATORS and get_args(returned):
        returned = get_args(returned)[0]
    if returned is _EMPTY:
        returned = Any
    elif returned is type(None) or returned == "None":
        returned = None
    try:
        return schema_for(variant, "return_value", returned, func_name)
    except Exception as direct:  # any failure: try the JSON schema
        try:
            return types.Schema.model_validate(json_schema_for(returned))
        except Exception as fallback:  # declare no response schema
            logger.warning(
                "%s is declared without a response schema: its return type has no "
                "Schema form (%s; %s).",
                func_name,
                direct,
                fallback,
            )
            return None
