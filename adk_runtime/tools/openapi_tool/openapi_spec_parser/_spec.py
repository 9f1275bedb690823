"""An OpenAPI 3 document read into operations: one tool's worth each.

``$ref`` pointers inside the document are resolved (a schema that refers to itself is cut
at the second visit, as an open object); remote references are refused. Each operation's
parameters (path, query, header, cookie) and its JSON or form body's properties become the
arguments of one function, named after ``operationId`` in snake_case.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any, Literal

import yaml

from adk_runtime.errors import ConfigurationError

__all__ = ["Argument", "Operation", "load_spec", "operations"]

Location = Literal["path", "query", "header", "cookie", "body", "form"]

MAX_TOOL_NAME_LENGTH = 60
_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
_JSON = re.compile(r"^application/([\w.+-]+\+)?json\b")


@dataclasses.dataclass(frozen=True)
class Argument:
    """One argument of an operation's function: where it goes in the request."""

    name: str  # the function's parameter name
    wire_name: str  # the name in the request (parameter or body property)
    location: Location
    schema: dict[str, Any]
    required: bool
    description: str = ""


@dataclasses.dataclass(frozen=True)
class Operation:
    """One operation of the document, ready to be a tool."""

    name: str
    description: str
    method: str
    path: str
    arguments: tuple[Argument, ...]
    body_is_whole: bool  # the body is one argument ("body"), not properties
    content_type: str | None  # the body's media type, if any

    def parameters_schema(self) -> dict[str, Any]:
        """The function's parameters as a JSON schema object."""
        properties: dict[str, Any] = {}
        for argument in self.arguments:
            schema = dict(argument.schema)
            if argument.description and "description" not in schema:
                schema["description"] = argument.description
            properties[argument.name] = schema
        required = [argument.name for argument in self.arguments if argument.required]
        result: dict[str, Any] = {"type": "object", "properties": properties}
        if required:
            result["required"] = required
        return result


def load_spec(spec_dict: dict[str, Any] | None, spec_str: str | None, kind: str) -> dict[str, Any]:
    """The document from a dict, or from JSON or YAML text.

    Raises:
        ConfigurationError: Neither or both given, text that does not parse, or not OpenAPI 3.
    """
    if (spec_dict is None) == (spec_str is None):
        raise ConfigurationError(
            "Give the OpenAPI document as spec_dict or spec_str (one of them)."
        )
    document: Any = spec_dict
    if spec_str is not None:
        if kind not in ("json", "yaml"):
            raise ConfigurationError(f"spec_str_type must be 'json' or 'yaml', not {kind!r}.")
        try:
            document = json.loads(spec_str) if kind == "json" else yaml.safe_load(spec_str)
        except (ValueError, yaml.YAMLError) as exc:
            raise ConfigurationError(f"The OpenAPI document is not valid {kind}: {exc}") from None
    if not isinstance(document, dict) or not str(document.get("openapi", "")).startswith("3"):
        raise ConfigurationError(
            "The document is not an OpenAPI 3 document (no 'openapi: 3.x' field); convert a "
            "Swagger 2 document first."
        )
    return document


class _Resolver:
    def __init__(self, document: dict[str, Any]) -> None:
        self._document = document

    def _target(self, pointer: str) -> Any:
        if not pointer.startswith("#/"):
            raise ConfigurationError(
                f"Only references inside the document are followed, not {pointer!r}."
            )
        node: Any = self._document
        for token in pointer[2:].split("/"):
            token = token.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, dict) or token not in node:
                raise ConfigurationError(f"The reference {pointer!r} points nowhere.")
            node = node[token]
        return node

    def resolve(self, node: Any, seen: frozenset[str] = frozenset()) -> Any:
        """``node`` with every ``$ref`` replaced by its target (cycles cut)."""
        if isinstance(node, list):
            return [self.resolve(item, seen) for item in node]
        if not isinstance(node, dict):
            return node
        pointer = node.get("$ref")
        if isinstance(pointer, str):
            if pointer in seen:
                return {"type": "object"}  # a schema that contains itself: cut here
            target = self.resolve(self._target(pointer), seen | {pointer})
            extra = {k: v for k, v in node.items() if k != "$ref"}
            return {**target, **self.resolve(extra, seen)} if isinstance(target, dict) else target
        return {key: self.resolve(value, seen) for key, value in node.items()}


def _snake(text: str) -> str:
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text)
    text = re.sub(r"[^0-9A-Za-z]+", "_", text).strip("_").lower()
    if not text or text[0].isdigit():
        text = f"op_{text}"
    return text


def _identifier(name: str) -> str:
    text = re.sub(r"[^0-9A-Za-z_]", "_", name)
    return f"_{text}" if not text or text[0].isdigit() else text


def _tool_name(operation: dict[str, Any], method: str, path: str, taken: set[str]) -> str:
    base = _snake(operation.get("operationId") or f"{method}_{path}")[:MAX_TOOL_NAME_LENGTH]
    name, number = base, 2
    while name in taken:
        suffix = f"_{number}"
        name, number = base[: MAX_TOOL_NAME_LENGTH - len(suffix)] + suffix, number + 1
    taken.add(name)
    return name


def _parameters(item: dict[str, Any], operation: dict[str, Any]) -> list[Argument]:
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    for parameter in [*item.get("parameters", []), *operation.get("parameters", [])]:
        merged[(parameter.get("name", ""), parameter.get("in", ""))] = parameter
    arguments = []
    for (name, where), parameter in merged.items():
        if where not in ("path", "query", "header", "cookie") or not name:
            continue
        arguments.append(
            Argument(
                name=_identifier(name),
                wire_name=name,
                location=where,  # type: ignore[arg-type]
                schema=parameter.get("schema") or {"type": "string"},
                required=bool(parameter.get("required")) or where == "path",
                description=parameter.get("description", ""),
            )
        )
    return arguments


def _body(operation: dict[str, Any]) -> tuple[list[Argument], bool, str | None]:
    body = operation.get("requestBody")
    if not isinstance(body, dict):
        return [], False, None
    content: dict[str, Any] = body.get("content") or {}
    chosen = next((t for t in content if _JSON.match(t)), None)
    location: Location = "body"
    if chosen is None and "application/x-www-form-urlencoded" in content:
        chosen, location = "application/x-www-form-urlencoded", "form"
    if chosen is None:
        return [], False, None
    schema = (content[chosen] or {}).get("schema") or {}
    required = bool(body.get("required"))
    properties = schema.get("properties") if schema.get("type", "object") == "object" else None
    if isinstance(properties, dict) and properties:
        needed = set(schema.get("required") or [])
        arguments = [
            Argument(_identifier(name), name, location, prop, required and name in needed)
            for name, prop in properties.items()
        ]
        return arguments, False, chosen
    whole = Argument("body", "body", location, schema, required, body.get("description", ""))
    return [whole], True, chosen


def _distinct(arguments: list[Argument]) -> tuple[Argument, ...]:
    """The arguments with clashing names told apart by their location (``id_path``...)."""
    counts: dict[str, int] = {}
    for argument in arguments:
        counts[argument.name] = counts.get(argument.name, 0) + 1
    return tuple(
        dataclasses.replace(argument, name=f"{argument.name}_{argument.location}")
        if counts[argument.name] > 1
        else argument
        for argument in arguments
    )


def operations(document: dict[str, Any]) -> list[Operation]:
    """Every operation of ``document``, in the document's order."""
    resolved = _Resolver(document).resolve(document)
    taken: set[str] = set()
    found: list[Operation] = []
    for path, item in (resolved.get("paths") or {}).items():
        if not isinstance(item, dict):
            continue
        for method in _METHODS:
            operation = item.get(method)
            if not isinstance(operation, dict):
                continue
            body, whole, content_type = _body(operation)
            text = [operation.get("summary", ""), operation.get("description", "")]
            found.append(
                Operation(
                    name=_tool_name(operation, method, path, taken),
                    description="\n\n".join(t for t in text if t) or f"{method.upper()} {path}",
                    method=method.upper(),
                    path=path,
                    arguments=_distinct([*_parameters(item, operation), *body]),
                    body_is_whole=whole,
                    content_type=content_type,
                )
            )
    return found
