"""SetModelResponseTool: how a model with tools gives an answer that follows ``output_schema``."""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable
from typing import Any, Final

import pydantic
from google.genai import types

from adk_runtime.core.base_tool import BaseTool
from adk_runtime.core.tool_context import ToolContext
from adk_runtime.tools._declaration import function_declaration

__all__ = [
    "SetModelResponseTool",
    "conform",
    "is_model_schema",
    "list_item_model",
    "validate_output",
]

_DESCRIPTION = (
    "Set your final response in the required structure: call this instead of answering in "
    "text, once any other tools you needed have returned."
)
_CONFIRMATION = "Response set successfully."


def is_model_schema(schema: Any) -> bool:
    """True for a pydantic model class."""
    return isinstance(schema, type) and issubclass(schema, pydantic.BaseModel)


def list_item_model(schema: Any) -> type[pydantic.BaseModel] | None:
    """The model class of a ``list[Model]`` schema, else None."""
    if getattr(schema, "__origin__", None) is list:
        args: tuple[Any, ...] = getattr(schema, "__args__", ())
        if len(args) == 1 and is_model_schema(args[0]):
            item: type[pydantic.BaseModel] = args[0]
            return item
    return None


def conform(schema: Any, value: Any) -> Any:
    """``value`` validated against ``schema``, as plain data (``None`` fields left out).

    A pydantic model gives a dict, ``list[Model]`` a list of dicts, any other Python type
    (``list[str]``, ``dict[str, int]``, ``int``...) the validated value. A schema given as a
    JSON-schema dict (or a genai ``Schema``) is the model's to follow: the value is returned
    as it came.

    Raises:
        pydantic.ValidationError: ``value`` does not follow ``schema``.
    """
    if is_model_schema(schema):
        return schema.model_validate(value).model_dump(exclude_none=True)
    if isinstance(schema, dict):
        return value
    adapter: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(schema)
    return adapter.dump_python(adapter.validate_python(value), exclude_none=True)


def _answer_parameters(schema: Any) -> list[inspect.Parameter]:
    """The keyword-only parameters the model fills in for ``schema`` (see the tool)."""
    if is_model_schema(schema):
        return [
            inspect.Parameter(
                name,
                inspect.Parameter.KEYWORD_ONLY,
                annotation=field.annotation,
                default=(
                    inspect.Parameter.empty
                    if field.is_required()
                    else field.get_default(call_default_factory=True)
                ),
            )
            for name, field in schema.model_fields.items()
        ]
    if list_item_model(schema) is not None:
        return [inspect.Parameter("items", inspect.Parameter.KEYWORD_ONLY, annotation=schema)]
    # A JSON-schema dict is no Python type: the parameter is a plain ``dict``.
    annotation = dict if isinstance(schema, dict) else schema
    return [inspect.Parameter("response", inspect.Parameter.KEYWORD_ONLY, annotation=annotation)]


class SetModelResponseTool(BaseTool):
    """Offered when an agent has both ``output_schema`` and tools (google-adk's workaround).

    The model calls ``set_model_response`` with its answer: a pydantic model's fields as the
    arguments, ``items`` for a ``list[Model]`` schema, ``response`` for any other schema.
    ``run_async`` returns the validated answer (a dict for a model, a list of dicts for
    ``list[Model]``, the value for other schemas) or, when the arguments do not follow the
    schema, ``{"error": ...}`` asking the model to call again. A call whose response is the
    validated answer ends the agent's turn with a model event whose text is the answer as
    JSON (and ``output_key`` stores it).

    ``func`` is a stand-in function whose keyword-only parameters mirror the answer's shape
    (for code that inspects the tool's signature); calling it only confirms.
    """

    NAME: Final[str] = "set_model_response"

    def __init__(self, output_schema: Any) -> None:
        """Offer an answer following ``output_schema``."""
        super().__init__(name=self.NAME, description=_DESCRIPTION)
        if isinstance(output_schema, types.Schema):
            output_schema = output_schema.model_dump(exclude_none=True)
        self.output_schema = output_schema
        self._is_basemodel = is_model_schema(output_schema)
        self._is_list_of_basemodel = list_item_model(output_schema) is not None

        def set_model_response() -> str:
            return _CONFIRMATION

        set_model_response.__doc__ = _DESCRIPTION
        set_model_response.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            _answer_parameters(output_schema)
        )
        self.func: Callable[..., str] = set_model_response

    def _get_declaration(self) -> types.FunctionDeclaration:
        return function_declaration(self.name, self.description, self._parameters())

    def _parameters(self) -> dict[str, Any]:
        schema = self.output_schema
        if is_model_schema(schema):
            return schema.model_json_schema()  # type: ignore[no-any-return]
        if list_item_model(schema) is not None:
            items = pydantic.TypeAdapter(schema).json_schema()
            return {"type": "object", "properties": {"items": items}, "required": ["items"]}
        if isinstance(schema, dict):
            inner: dict[str, Any] = schema
        else:
            inner = pydantic.TypeAdapter(schema).json_schema()
        return {"type": "object", "properties": {"response": inner}, "required": ["response"]}

    def validated_answer(self, args: dict[str, Any]) -> Any:
        """The answer in ``args`` (the model's call), validated against the schema.

        Raises:
            pydantic.ValidationError: The arguments do not follow the schema.
        """
        schema = self.output_schema
        if self._is_basemodel:
            return schema.model_validate(args).model_dump(exclude_none=True)
        return conform(schema, args.get(self._answer_key()))

    def _answer_key(self) -> str:
        return "items" if self._is_list_of_basemodel else "response"

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Validate the answer; return it, or an error asking the model to call again."""
        try:
            return self.validated_answer(args)
        except pydantic.ValidationError as exc:
            # The arguments' key first, so the model sees where in its call the problem is.
            key = () if self._is_basemodel else (self._answer_key(),)
            problems = "; ".join(
                f"{'.'.join(str(p) for p in (*key, *error['loc']))}: {error['msg']}"
                for error in exc.errors()
            )
            return {
                "error": f"Validation error: the answer does not follow the required "
                f"structure ({problems}). Call {self.NAME} again with every required "
                "field, of the right type."
            }

    def answer_json(self, args: dict[str, Any], response: dict[str, Any]) -> str | None:
        """The final answer's JSON text, or None when the call gave no answer.

        ``args`` are the model's call arguments, ``response`` the function response the call
        got. The call answers only when ``response`` is the validated answer itself (as
        ``run_async`` returns it; a value that is not a dict is carried as ``{"result":
        value}``): an error, or a response a callback put in its place, is no answer.
        """
        try:
            value = self.validated_answer(args)
        except pydantic.ValidationError:
            return None
        delivered = value if isinstance(value, dict) else {"result": value}
        if value is None or delivered != response:
            return None
        return json.dumps(value, ensure_ascii=False)


_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*\n(?P<body>.*?)\n?```\s*$", re.DOTALL)


def validate_output(schema: Any, text: str) -> Any:
    """Parse the model's JSON ``text`` against ``schema`` (a code fence around it is removed).

    Returns:
        A dict for a pydantic model (``None`` fields left out), a list of dicts for
        ``list[Model]``, the validated value for any other Python type (``list[str]``,
        ``dict[str, int]``...), the parsed JSON for a JSON-schema dict.

    Raises:
        pydantic.ValidationError: The text does not follow the schema.
        ValueError: The text is not JSON (other schemas).
    """
    fenced = _FENCE.match(text)
    if fenced is not None:
        text = fenced.group("body")
    if is_model_schema(schema):
        return schema.model_validate_json(text).model_dump(exclude_none=True)
    return conform(schema, json.loads(text))
