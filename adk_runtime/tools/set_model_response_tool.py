"""SetModelResponseTool: how a model with tools gives an answer that follows ``output_schema``."""

from __future__ import annotations

import json
from typing import Any, Final

import pydantic
from google.genai import types

from adk_runtime.tools._declaration import function_declaration
from adk_runtime.tools.base_tool import BaseTool
from adk_runtime.tools.tool_context import ToolContext

__all__ = ["SetModelResponseTool", "is_model_schema", "list_item_model"]

_DESCRIPTION = (
    "Give your final answer in the required structure. Call this instead of answering in "
    "text, once any other tools you needed have returned."
)


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


class SetModelResponseTool(BaseTool):
    """Offered when an agent has both ``output_schema`` and tools (google-adk's workaround).

    The model calls ``set_model_response`` with its answer: a pydantic model's fields as the
    arguments, ``items`` for a ``list[Model]`` schema, ``response`` for any other schema. A
    valid call ends the agent's turn with a model event whose text is the answer as JSON (and
    ``output_key`` stores it); an invalid one is answered with an error asking for a retry.
    """

    NAME: Final[str] = "set_model_response"

    def __init__(self, output_schema: Any) -> None:
        """Offer an answer following ``output_schema``."""
        super().__init__(name=self.NAME, description=_DESCRIPTION)
        if isinstance(output_schema, types.Schema):
            output_schema = output_schema.model_dump(exclude_none=True)
        self.output_schema = output_schema

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

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Validate the answer; return it (the flow turns it into the final response)."""
        schema = self.output_schema
        try:
            if is_model_schema(schema):
                return schema.model_validate(args).model_dump(exclude_none=True)
            key = "items" if list_item_model(schema) is not None else "response"
            return {"result": conform(schema, args.get(key))}
        except pydantic.ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in error['loc']) or '(root)'}: {error['msg']}"
                for error in exc.errors()
            )
            return {
                "error": f"The answer does not follow the required structure ({problems}). "
                f"Call {self.NAME} again with every required field, of the right type."
            }

    def answer_json(self, response: dict[str, Any]) -> str | None:
        """The final answer's JSON text from this tool's function response (None: an error)."""
        if set(response) == {"error"}:
            return None
        value = response if is_model_schema(self.output_schema) else response.get("result")
        return json.dumps(value, ensure_ascii=False)
