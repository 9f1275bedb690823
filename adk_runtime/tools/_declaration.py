"""Read a Python callable: its name, docstring, parameters and their resolved types.

The one place that reads a tool function. ``FunctionTool`` validates the model's arguments
with :class:`Signature`'s model; the JSON-schema declaration
(``_function_tool_declarations``) is that same model's schema, and the google-genai
``Schema`` declaration (``_automatic_function_calling_util``) reads the same hints.
"""

from __future__ import annotations

import functools
import inspect
import logging
import sys
import typing
from collections.abc import Callable, Collection
from types import UnionType
from typing import Annotated, Any, ForwardRef, Literal, Union, get_args, get_origin

import pydantic
from google.genai import types
from pydantic import fields as pydantic_fields
from pydantic_core import PydanticUndefined

from adk_runtime.features import FeatureName, is_feature_enabled

__all__ = [
    "CONTEXT_PARAMETER",
    "Signature",
    "callable_doc",
    "callable_name",
    "context_parameter",
    "function_declaration",
    "resolved_hints",
]

logger = logging.getLogger(__name__)

CONTEXT_PARAMETER = "tool_context"
# Parameters the runtime fills in (the context) or that only live streaming tools take.
_LIVE_STREAM_PARAMETER = "input_stream"
_DECLARED_KINDS = (
    inspect.Parameter.POSITIONAL_ONLY,
    inspect.Parameter.POSITIONAL_OR_KEYWORD,
    inspect.Parameter.KEYWORD_ONLY,
)


def callable_name(func: Callable[..., Any]) -> str:
    """The name a callable is declared and registered under.

    Its ``__name__``; for a ``functools.partial`` without one, the wrapped callable's; for
    a callable object, its class name.
    """
    if isinstance(func, functools.partial) and not hasattr(func, "__name__"):
        return callable_name(func.func)
    name = getattr(func, "__name__", None)
    return name if isinstance(name, str) and name else type(func).__name__


def callable_doc(func: Callable[..., Any]) -> str:
    """The description the model sees: the callable's cleaned docstring, or ``""``.

    A function's docstring; for a ``functools.partial``, the wrapped callable's; for a
    callable object, its class's docstring or else its ``__call__``'s.
    """
    if isinstance(func, functools.partial):
        wrapped: Callable[..., Any] = func.func
        return callable_doc(wrapped)
    doc = inspect.getdoc(func)
    if not doc and not inspect.isroutine(func) and not inspect.isclass(func):
        doc = inspect.getdoc(type(func).__call__)
    return doc or ""


def _target(func: Callable[..., Any]) -> Any:
    """The plain function behind partials, bound methods, wrappers and callable objects."""
    seen: set[int] = set()
    target: Any = func
    while id(target) not in seen:
        seen.add(id(target))
        if isinstance(target, functools.partial):
            target = target.func
        elif inspect.ismethod(target):
            target = target.__func__
        elif getattr(target, "__wrapped__", None) is not None:
            target = target.__wrapped__
        elif not inspect.isroutine(target) and not inspect.isclass(target):
            if not callable(target):
                break
            target = type(target).__call__
        else:
            break
    return target


def _globals_of(func: Callable[..., Any]) -> dict[str, Any]:
    target = _target(func)
    namespace = getattr(target, "__globals__", None)
    if isinstance(namespace, dict):
        return namespace
    module = sys.modules.get(getattr(target, "__module__", None) or "")
    return dict(vars(module)) if module is not None else {}


def _type_hints(func: Callable[..., Any]) -> dict[str, Any]:
    """``typing.get_type_hints`` of the callable (with ``Annotated``), or ``{}``."""
    try:
        return typing.get_type_hints(_target(func), include_extras=True)
    except (NameError, TypeError, AttributeError):
        return {}


def _unresolved(annotation: Any) -> bool:
    """Whether ``annotation`` still holds a name that could not be evaluated."""
    if isinstance(annotation, str | ForwardRef):
        return True
    origin = get_origin(annotation)
    if origin is None or origin is Literal:
        return False
    args = get_args(annotation)
    if origin is Annotated:
        return bool(args) and _unresolved(args[0])
    return any(_unresolved(arg) for arg in args)


def _resolve(annotation: Any, namespace: dict[str, Any]) -> Any:
    """Evaluate string and forward-reference parts of ``annotation`` in ``namespace``."""
    if isinstance(annotation, ForwardRef):
        annotation = annotation.__forward_arg__
    if isinstance(annotation, str):
        try:
            # What typing.get_type_hints does with a string annotation, one at a time.
            return _resolve(eval(annotation, namespace), namespace)
        except Exception:  # an unknown name: the annotation stays text (unresolved)
            return annotation
    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin is None or origin is Literal or not args:
        return annotation
    if origin is Annotated:
        inner = _resolve(args[0], namespace)
        return annotation if inner is args[0] else _annotated(inner, args[1:])
    resolved: tuple[Any, ...] = tuple(_resolve(arg, namespace) for arg in args)
    if resolved == args:
        return annotation
    subscript: Any = resolved[0] if len(resolved) == 1 else resolved
    try:
        if origin in (Union, UnionType):
            return Union[resolved]  # noqa: UP007 - rebuilt from a tuple of members
        return origin[subscript]
    except TypeError:
        return annotation


def _annotated(annotation: Any, metadata: tuple[Any, ...]) -> Any:
    """``Annotated[annotation, *metadata]`` (nested ``Annotated`` flattens into one)."""
    for item in metadata:
        annotation = Annotated[annotation, item]
    return annotation


def resolved_hints(func: Callable[..., Any]) -> dict[str, Any]:
    """Each parameter's annotation (and ``"return"``), resolved where possible.

    ``typing.get_type_hints`` first; when a name cannot be found (a ``TYPE_CHECKING``
    import, a class local to a function), each annotation is evaluated on its own in the
    function's module, and one that still fails stays a string.
    """
    hints = _type_hints(func)
    namespace = _globals_of(func)
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return hints
    raw: dict[str, Any] = {name: p.annotation for name, p in signature.parameters.items()}
    raw["return"] = signature.return_annotation
    result: dict[str, Any] = {}
    for name, annotation in raw.items():
        value = hints.get(name, annotation)
        if value is inspect.Parameter.empty:
            continue
        result[name] = _resolve(value, namespace) if _unresolved(value) else value
    return result


def _is_context_type(annotation: Any) -> bool:
    from adk_runtime.core.tool_context import ToolContext

    if get_origin(annotation) in (Union, UnionType):
        return any(_is_context_type(arg) for arg in get_args(annotation))
    return inspect.isclass(annotation) and issubclass(annotation, ToolContext)


def context_parameter(func: Callable[..., Any]) -> str | None:
    """The first parameter annotated ``ToolContext`` (``Context``, or Optional of it)."""
    try:
        parameters = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return None
    hints = resolved_hints(func)
    for name, param in parameters.items():
        if _is_context_type(hints.get(name, param.annotation)):
            return name
    return None


def _field(annotation: Any, default: Any) -> tuple[Any, Any]:
    """A ``create_model`` field for a parameter; ``Annotated`` metadata is kept, aliases not.

    The model validates the model's arguments by parameter name, so an alias in a
    ``Field(...)`` annotation would only hide the parameter.
    """
    if get_origin(annotation) is not Annotated:
        return annotation, default
    info = pydantic_fields.FieldInfo.from_annotation(annotation)
    info.alias = info.validation_alias = info.serialization_alias = None
    info.default = default
    info.default_factory = None
    return (Any if info.annotation is None else info.annotation), info


class Signature:
    """What the model sees of a Python function, and how its arguments are validated.

    The context parameter (the first one annotated ``ToolContext``, else one named
    ``tool_context``) is injected by the runtime and never shown to the model, nor are
    ``input_stream`` (live streaming), ``*args`` / ``**kwargs`` and the names in
    ``ignore``. An unannotated parameter is ``Any``.
    """

    def __init__(
        self,
        func: Callable[..., Any],
        name: str,
        description: str,
        ignore: Collection[str] = (),
    ) -> None:
        """Read ``func``'s signature and type hints."""
        self.name = name
        self.description = description
        self.func = func
        self.context_name = context_parameter(func) or CONTEXT_PARAMETER
        hints = resolved_hints(func)
        params = inspect.signature(func).parameters
        self.wants_context = self.context_name in params
        #: Every parameter the function takes by name.
        self.parameter_names = frozenset(
            p.name for p in params.values() if p.kind in _DECLARED_KINDS
        )
        skipped = {self.context_name, _LIVE_STREAM_PARAMETER, *ignore}
        fields: dict[str, Any] = {}
        #: Parameters whose annotation names something that could not be found.
        self.unresolved: list[str] = []
        for param in params.values():
            if param.kind not in _DECLARED_KINDS or param.name in skipped:
                continue
            annotation = hints.get(param.name, Any)
            if _unresolved(annotation):
                self.unresolved.append(param.name)
                annotation = Any
            default = PydanticUndefined if param.default is param.empty else (param.default)
            fields[param.name] = _field(annotation, default)
        self.arguments: type[pydantic.BaseModel] = pydantic.create_model(
            f"{name}Params",
            __config__=pydantic.ConfigDict(arbitrary_types_allowed=True),
            **fields,
        )

    def declaration(self) -> types.FunctionDeclaration:
        """The declaration, in the form ``FeatureName.JSON_SCHEMA_FOR_FUNC_DECL`` selects."""
        from adk_runtime.tools._automatic_function_calling_util import build_function_declaration
        from adk_runtime.utils.variant_utils import get_google_llm_variant

        declaration = build_function_declaration(
            self.func, ignore_params=[self.context_name], variant=get_google_llm_variant()
        )
        declaration.name = self.name
        declaration.description = self.description or None
        return declaration

    def parameters_json_schema(self) -> dict[str, Any] | None:
        """The JSON schema of the arguments model; None without parameters (or unreadable)."""
        if not self.arguments.model_fields:
            return None
        if self.unresolved:
            logger.warning(
                "The annotations of %s (%s) name types that cannot be found; %s is declared "
                "without parameters.",
                ", ".join(self.unresolved),
                self.name,
                self.name,
            )
            return None
        return self.arguments.model_json_schema()

    def missing(self, args: dict[str, Any]) -> list[str]:
        """The required parameters (no default value) that ``args`` leaves out, in order."""
        fields = self.arguments.model_fields
        return [name for name, field in fields.items() if field.is_required() and name not in args]

    def validate(self, args: dict[str, Any]) -> dict[str, Any]:
        """Return the keyword arguments for ``args`` (coerced to the annotated types).

        A whole number for a ``float`` parameter stays the ``int`` the model sent, in lists
        and dicts too (:func:`_as_sent`), as google-adk passes it.

        Raises:
            pydantic.ValidationError: An argument is missing or of the wrong type.
        """
        known = {key: value for key, value in args.items() if key in self.arguments.model_fields}
        validated = self.arguments.model_validate(known)
        kwargs: dict[str, Any] = {}
        for name in self.arguments.model_fields:
            value = getattr(validated, name)
            kwargs[name] = _as_sent(known[name], value) if name in known else value
        return kwargs

    def coerce(self, args: dict[str, Any]) -> dict[str, Any]:
        """``args`` with each value converted to its parameter's type where that succeeds.

        A JSON object becomes the annotated pydantic model (or the member of a union of
        models it fits), a list of them a list of models, a whole float an ``int``; an ``int``
        for a ``float`` stays an ``int`` (:func:`_as_sent`); a value that does not fit is
        passed on unchanged, and unknown names are kept.
        """
        result = dict(args)
        for name, value in args.items():
            adapter = self._adapters.get(name)
            if adapter is None:
                continue
            try:
                result[name] = _as_sent(value, adapter.validate_python(value))
            except (pydantic.ValidationError, TypeError, ValueError):
                logger.debug("Argument %r of %s kept as given: it does not fit.", name, self.name)
        return result

    @functools.cached_property
    def _adapters(self) -> dict[str, pydantic.TypeAdapter[Any]]:
        adapters: dict[str, pydantic.TypeAdapter[Any]] = {}
        for name, field in self.arguments.model_fields.items():
            annotation = _annotated(field.annotation, tuple(field.metadata))
            try:
                adapters[name] = pydantic.TypeAdapter(annotation)
            except pydantic.PydanticSchemaGenerationError:
                adapters[name] = pydantic.TypeAdapter(
                    annotation, config=pydantic.ConfigDict(arbitrary_types_allowed=True)
                )
        return adapters


def _as_sent(sent: Any, converted: Any) -> Any:
    """``converted``, except that an ``int`` it turned into the equal ``float`` stays the int.

    Python takes an ``int`` wherever a ``float`` is annotated, and google-adk hands a tool
    the number as the model sent it (``200``, not ``200.0``, for ``amount: float``), also
    inside a list or a dict; a value converted otherwise (a model built from a dict, a whole
    float made an ``int``) is the converted one.
    """
    if type(sent) is int and type(converted) is float and converted == sent:
        return sent
    if type(sent) is list and type(converted) is list and len(sent) == len(converted):
        return [_as_sent(s, c) for s, c in zip(sent, converted, strict=True)]
    if type(sent) is dict and type(converted) is dict and sent.keys() == converted.keys():
        return {key: _as_sent(sent[key], value) for key, value in converted.items()}
    return converted


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
