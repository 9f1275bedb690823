"""RequestInput: what a generator tool yields to ask the user for input (human in the loop).

``google.adk.events.request_input`` → here. A generator tool yields
``RequestInput(message="Approve the refund?")``; the invocation pauses on an
``adk_request_input`` call the client answers, and the tool runs again with the answer in
``tool_context.resume_inputs[interrupt_id]`` (see ``adk_runtime.agents._input_requests``).
"""

from __future__ import annotations

from typing import Any

import pydantic
from pydantic import BaseModel, ConfigDict, Field, alias_generators, field_serializer

from adk_runtime.events._json_fields import JsonValue
from adk_runtime.platform import uuid as platform_uuid

__all__ = ["RequestInput"]


class RequestInput(BaseModel):
    """A request for the user's input.

    Attributes:
        interrupt_id: The id of the request: the id of the ``adk_request_input`` call the
            client answers, and the key of the answer in ``tool_context.resume_inputs``.
            A fresh one by default; a tool that asks again after a rerun uses a fixed id to
            find its answer.
        payload: Free JSON data for the client (what to show, a form's defaults).
        message: The question shown to the user.
        response_schema: What the answer should look like: a JSON schema dict, or a Python
            type (a pydantic model, ``bool``, ``list[str]``) given as its JSON schema.
    """

    model_config = ConfigDict(
        arbitrary_types_allowed=True,
        alias_generator=alias_generators.to_camel,
        populate_by_name=True,
    )

    interrupt_id: str = Field(
        default_factory=platform_uuid.new_uuid, min_length=1, max_length=128, pattern=r"^\S+$"
    )
    payload: JsonValue = None
    message: str | None = None
    response_schema: Any = None

    @field_serializer("response_schema")
    def _schema_as_json(self, _value: Any) -> dict[str, Any] | None:
        return self.response_json_schema()

    def response_json_schema(self) -> dict[str, Any] | None:
        """``response_schema`` as a JSON schema (None when there is none).

        Raises:
            ValueError: It is neither a JSON schema dict nor a type pydantic can describe.
        """
        schema = self.response_schema
        if schema is None or isinstance(schema, dict):
            return schema
        try:
            return pydantic.TypeAdapter(schema).json_schema()
        except (pydantic.PydanticSchemaGenerationError, pydantic.PydanticUserError, TypeError):
            raise ValueError(
                f"RequestInput.response_schema {schema!r} is neither a JSON schema dict nor a "
                "type with a JSON schema."
            ) from None
