"""Values for every field of a pydantic model, driven by its annotations (never its defaults).

:func:`filled` builds an instance of a model in which every field holds a value other than
its default, recursing into the nested models of the packages named in ``deep`` (google-adk's
own, adk_runtime's) and filling shared google-genai models one level deep. It enumerates the
fields at run time, so a field a new release adds is filled (and tested) with no edit here.
"""

from __future__ import annotations

import datetime
import enum
import types as pytypes
import typing
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel

Overrides = Mapping[tuple[str, str], Callable[[], Any]]
"""``(model class name, field name)`` to a value factory, for fields whose annotation does
not say what the model takes (google-adk's ``requested_auth_configs`` is ``dict[str, Any]``
validated into ``AuthConfig``)."""

FREE_FORM: dict[str, Any] = {
    "text": "héllo",
    "number": 2.5,
    "integer": 7,
    "flag": True,
    "nothing": None,
    "list": [1, "two", [3.25]],
    "bytes": b"\x00\xffpng",
    "when": datetime.datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=datetime.timezone.utc),
}
"""A free-form (``Any``) value: every kind the stores' codec keeps exactly."""


def filled(
    model: type[BaseModel], deep: tuple[str, ...], overrides: Overrides, path: str = ""
) -> BaseModel:
    """An instance of ``model`` with a non-default value in every field."""
    data = {
        name: _override(model, name, overrides)
        or value_for(field.annotation, deep, overrides, f"{path}.{name}", recurse=True)
        for name, field in model.model_fields.items()
    }
    return model.model_validate(data)


def _override(model: type[BaseModel], name: str, overrides: Overrides) -> Any:
    for cls in model.__mro__:
        factory = overrides.get((cls.__name__, name))
        if factory is not None:
            return factory()
    return None


def value_for(
    annotation: Any, deep: tuple[str, ...], overrides: Overrides, path: str, recurse: bool
) -> Any:
    """A value of ``annotation`` that is no model's default (not None, not empty)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return value_for(typing.get_args(annotation)[0], deep, overrides, path, recurse)
    args = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
    if origin in (typing.Union, pytypes.UnionType):
        return value_for(args[0], deep, overrides, path, recurse)
    if origin is typing.Literal:
        return args[-1]
    if origin in (list, set, frozenset, tuple):
        item = value_for(args[0] if args else Any, deep, overrides, path, recurse)
        return {item} if origin in (set, frozenset) else [item]
    if origin is dict:
        return {"key-1": value_for(args[1] if args else Any, deep, overrides, path, recurse)}
    if annotation is Any or annotation is object:
        return dict(FREE_FORM)
    if isinstance(annotation, type):
        return _of_type(annotation, deep, overrides, path, recurse)
    raise TypeError(f"{path}: no value for {annotation!r}")


def _of_type(
    annotation: type, deep: tuple[str, ...], overrides: Overrides, path: str, recurse: bool
) -> Any:
    if issubclass(annotation, enum.Enum):
        members = list(annotation)
        return members[-1]
    if issubclass(annotation, BaseModel):
        if annotation.__module__.startswith(deep):
            return filled(annotation, deep, overrides, path)
        if recurse:  # a shared google-genai model: its scalar fields, one level deep
            return annotation.model_validate(_scalars(annotation, path))
        return None
    scalars: dict[type, Any] = {
        bool: True,
        int: 3,
        float: 1.25,
        str: f"v{path}",
        bytes: b"\x01\x02",
        datetime.datetime: FREE_FORM["when"],
    }
    for kind, value in scalars.items():
        if issubclass(annotation, kind):
            return value
    raise TypeError(f"{path}: no value for {annotation!r}")


def _scalars(model: type[BaseModel], path: str) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        try:
            value = value_for(field.annotation, (), {}, f"{path}.{name}", recurse=False)
        except TypeError:
            continue
        if value is not None and not isinstance(value, (dict, list, set)):
            found[name] = value
    return found
