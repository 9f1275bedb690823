"""``BaseNode``: a step of a workflow graph, and ``START``, where every graph begins."""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from adk_runtime.events.event import Event
from adk_runtime.events.request_input import RequestInput
from adk_runtime.utils._problems import problems
from adk_runtime.utils.content_utils import extract_text_from_content
from adk_runtime.workflow._errors import (
    SchemaMismatchError,
    WorkflowConfigurationError,
    WorkflowDataError,
)
from adk_runtime.workflow._retry_config import RetryConfig

logger = logging.getLogger(__name__)

if TYPE_CHECKING:
    from adk_runtime.workflow._context import NodeContext

__all__ = ["START", "BaseNode", "message_value", "to_json_value"]


class BaseNode(BaseModel):
    """A node of a workflow graph: it takes an input and yields events, one of them its output.

    Subclasses implement :meth:`_run_impl`, an async generator. What it yields becomes events:
    an ``Event`` as it is, a ``types.Content`` a message, a ``RequestInput`` a question to the
    user, ``None`` nothing, and any other value the node's output (``Event(output=value)``).
    A run goes on after its questions (it may ask several); once it ends, it waits for the
    answers, and nothing downstream runs until then. A run has at most one output; it is
    passed to the nodes downstream as their input.

    Attributes:
        name: The node's name, a Python identifier, unique in its workflow.
        description: What the node does.
        rerun_on_resume: When the run asked something (``RequestInput``) and the user
            answered: True runs the node again at each answer (the answers so far are in
            ``ctx.resume_inputs``); False (the default) waits for every answer, then
            completes the run with the answer as its output (several: a dict of the answers
            by request id). A run that made an output before it asked completes with that
            output once answered.
        wait_for_output: A run that yields no output leaves the node waiting (nothing
            downstream runs) instead of completing with no output.
        retry_config: Retry a failed run (see ``RetryConfig``); None: no retry.
        timeout: Seconds a run may take before it fails with ``NodeTimeoutError``.
        input_schema: A type the input is validated against (and coerced to).
        output_schema: A type the output is validated against; a pydantic model output is
            stored as its JSON object.
        state_schema: A pydantic model the node's ``ctx.state`` writes must fit (an
            undeclared key or a wrong value raises ``StateSchemaError``; scoped keys such as
            ``temp:x`` are not checked); nodes inside inherit it unless they declare their own.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    name: str = Field(...)
    description: str = ""
    rerun_on_resume: bool = False
    wait_for_output: bool = False
    retry_config: RetryConfig | None = None
    timeout: float | None = Field(default=None, gt=0)
    input_schema: Any = None
    output_schema: Any = None
    state_schema: type[BaseModel] | None = None

    @field_validator("name")
    @classmethod
    def _identifier(cls, value: str) -> str:
        if not value.isidentifier():
            raise WorkflowConfigurationError(
                f"Node name {value!r} must be a valid Python identifier."
            )
        return value

    async def run(self, *, ctx: NodeContext, node_input: Any) -> AsyncGenerator[Event, None]:
        """Run the node once: validate the input, then yield ``_run_impl``'s items as events.

        Raises:
            WorkflowDataError: The input or an output does not fit its schema.
        """
        node_input = self._validate_input(node_input)
        async with aclosing(self._run_impl(ctx=ctx, node_input=node_input)) as items:
            async for item in items:
                event = self.as_event(item)
                if event is not None:
                    yield event

    async def _run_impl(self, *, ctx: NodeContext, node_input: Any) -> AsyncGenerator[Any, None]:
        """The node's work: an async generator of events, messages, requests or its output.

        Raises:
            NotImplementedError: The subclass implements neither this nor ``run`` (raised
                when the node runs, as in google-adk, so a bare ``BaseNode`` can be built).
        """
        for _ in ():  # an async generator, which fails when it runs
            yield
        raise NotImplementedError(
            f"Node {self.name!r} ({type(self).__name__}) has no work: implement _run_impl."
        )

    def _validate_input(self, data: Any) -> Any:
        return _checked(self.input_schema, data, f"The input of node {self.name!r}")

    def _validate_output(self, data: Any) -> Any:
        return _checked(self.output_schema, data, f"The output of node {self.name!r}")

    def checked_output(self, value: Any) -> Any:
        """``value`` checked against ``output_schema``, in its stored (JSON) form."""
        return to_json_value(self._validate_output(value), self.name)

    def as_event(self, item: Any) -> Event | None:
        """``item`` as ``run`` yields it: None skipped, an output checked, a request an event.

        The workflow also uses it on the items of a subclass that overrides ``run``.
        """
        if item is None:
            return None
        if isinstance(item, Event):
            if item.output is not None:
                item.output = self.checked_output(item.output)
            return item
        if isinstance(item, RequestInput):
            from adk_runtime.workflow._interrupts import request_event

            return request_event(item)
        if isinstance(item, types.Content):
            adapter = _adapter(self.output_schema)
            if adapter is not None and not _fits(adapter, item):
                return Event(output=self.checked_output(item))  # the value the message holds
            event = Event(content=item)
            event.node_info.message_as_output = True
            return event
        return Event(output=self.checked_output(item))


class _Start(BaseNode):
    """Where a graph starts: the nodes after it get the workflow's input."""

    async def _run_impl(self, *, ctx: NodeContext, node_input: Any) -> AsyncGenerator[Any, None]:
        yield node_input


START = _Start(name="__START__", description="The start of a workflow graph.")
"""The start of every graph: ``Workflow(edges=[(START, first_node, ...)])``."""


def _adapter(schema: Any) -> TypeAdapter[Any] | None:
    if schema is None or isinstance(schema, dict | types.Schema):
        return None  # a JSON schema is documentation here, as in google-adk
    try:
        return _cached_adapter(schema)
    except TypeError:  # an unhashable schema (an Annotated with unhashable metadata)
        return TypeAdapter(schema)


@functools.lru_cache(maxsize=256)
def _cached_adapter(schema: Any) -> TypeAdapter[Any]:
    """One adapter per schema: building one costs more than a validation."""
    return TypeAdapter(schema)


def _checked(schema: Any, data: Any, what: str) -> Any:
    adapter = _adapter(schema)
    if adapter is None:
        return data
    if isinstance(data, types.Content):
        data = message_value(data, adapter, what)
    try:
        return adapter.validate_python(data)
    except ValidationError as error:
        message = f"{what} does not fit its schema: {problems(error)}."
        raise SchemaMismatchError.of(message, error) from None


def message_value(
    content: types.Content, adapter: TypeAdapter[Any], what: str = "A typed input"
) -> Any:
    """The value a message stands for to the type of ``adapter``, as google-adk reads it.

    A type that takes a message (``Any``, ``types.Content``) gets the message; one that takes
    text (``str``) its text; any other the JSON value of its text (``42``, a list, an object
    for a pydantic model), or the text itself when it is not JSON, for the type to check.
    Parts that are not text (an image, a file) are left out then: a warning says how many,
    for ``what`` (never their data).
    """
    if _fits(adapter, content):
        return content
    dropped = [part for part in content.parts or [] if part.text is None]
    if dropped:
        logger.warning(
            "%s reads a message as its text: %d part(s) that are not text were left out.",
            what,
            len(dropped),
        )
    text = extract_text_from_content(content)
    if _fits(adapter, ""):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text


def _fits(adapter: TypeAdapter[Any], value: Any) -> bool:
    try:
        adapter.validate_python(value)
    except ValidationError:
        return False
    return True


_JSON: TypeAdapter[Any] = TypeAdapter(Any)


def to_json_value(value: Any, node_name: str) -> Any:
    """``value`` as the JSON value stored as a node's output (a model as its JSON object).

    Raises:
        WorkflowDataError: The value has no JSON form, or holds bytes (which would read back
            as text); nothing is committed then.
    """
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    if _holds_bytes(value):
        raise WorkflowDataError(
            f"The output of node {node_name!r} holds bytes, which would not read back as "
            "bytes: yield them as a message (types.Part.from_bytes) or save an artifact "
            "(ctx.save_artifact) and pass its name on."
        )
    try:
        return _JSON.dump_python(value, mode="json")
    except Exception as error:  # pydantic raises several kinds for an unserializable value
        raise WorkflowDataError(
            f"The output of node {node_name!r} ({type(value).__name__}) cannot be stored as "
            "JSON: return JSON-like values (str, numbers, bools, lists, dicts) or pydantic "
            "models."
        ) from error


def _holds_bytes(value: Any) -> bool:
    if isinstance(value, bytes | bytearray | memoryview):
        return True
    if isinstance(value, dict):
        return any(_holds_bytes(item) for item in value.values())
    if isinstance(value, list | tuple | set | frozenset):
        return any(_holds_bytes(item) for item in value)
    return False
