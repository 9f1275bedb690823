"""Event: one step of a conversation, as the Runner commits and yields it."""

from __future__ import annotations

import json
import re
from typing import Any

from google.genai import types
from pydantic import BaseModel, Field, field_serializer, model_validator
from pydantic_core import PydanticSerializationError

from adk_runtime import codec
from adk_runtime.errors import SerializationError, UnreadableDataError
from adk_runtime.events import _stored_decoder
from adk_runtime.events._cache_metadata import CacheMetadata
from adk_runtime.events._json_fields import STORED, STORED_FORM, JsonDict, JsonValue
from adk_runtime.events._node_info import NodeInfo
from adk_runtime.events._parts import function_calls, function_responses
from adk_runtime.events.event_actions import EventActions
from adk_runtime.platform import time as platform_time
from adk_runtime.platform import uuid as platform_uuid

__all__ = ["Event", "NodeInfo", "event_from_json", "event_from_stored", "event_to_json"]

_ROUTED_KWARGS = frozenset({"message", "state", "route", "node_path"})
"""Constructor shortcuts of google-adk 2's Event, each routed to the field it stands for."""


class Event(BaseModel):
    """An event in a session, with google-adk's field names and meaning.

    ``id`` is a fresh uuid4 string and ``timestamp`` the creation time in float seconds,
    unless given (both from :mod:`adk_runtime.platform`'s providers). Events are ordered by
    when they were committed, never by timestamp.

    As in google-adk 2, the constructor (and ``model_validate``) takes shortcuts for nested
    fields: ``message=`` (a ``Content``, a ``Part``, a string or a list of parts/strings) for
    ``content``, ``state=`` for ``actions.state_delta``, ``route=`` for ``actions.route`` and
    ``node_path=`` for ``node_info.path``. A subclass that declares a field of one of those
    names gets it as a field instead.

    Attributes:
        invocation_id: The invocation this event belongs to.
        author: ``"user"`` or the name of the agent that produced the event.
        content: The message (a google-genai ``Content``).
        actions: The side effects committed with the event.
        output: google-adk 2's output value of a workflow node (any JSON-like value, stored
            through the shared codec). adk_runtime's agents never set it; it is kept when
            given.
        partial: A streaming chunk: yielded, never stored, its actions never applied.
        branch: ``agent_1.agent_2`` path of the agent that produced it, for isolation.
        long_running_tool_ids: Function-call ids of long-running tools still pending
            (stored sorted, so the same event always serializes alike).
        isolation_scope: The delegated task the event belongs to (the id of the call that
            delegated it), or None: an agent sees only the events of its own scope, so a
            task agent's work stays out of its parent's view and the other way round.
        node_info: The workflow node the event comes from (google-adk 2); empty for
            adk_runtime's own agents, kept when given.
        logprobs_result: On a model-response event: the log probabilities of the chosen and
            top candidate tokens, when the request asked for them.
        cache_metadata: On a model-response event: the Gemini context cache its request used
            (or the fingerprint of the request's cacheable prefix), read back by the next
            model call of the same agent to reuse the cache.
        interaction_id: On a model-response event of a model on Gemini's Interactions API:
            the interaction, which the agent's next model call continues (stored, so the
            chain survives restarts and replicas).
        environment_id: The Interactions API execution environment of that interaction,
            when the API names one.
    """

    model_config = STORED_FORM.copy()
    model_config["arbitrary_types_allowed"] = True

    model_version: str | None = None
    content: types.Content | None = None
    grounding_metadata: types.GroundingMetadata | None = None
    citation_metadata: types.CitationMetadata | None = None
    usage_metadata: types.GenerateContentResponseUsageMetadata | None = None
    finish_reason: types.FinishReason | None = None
    avg_logprobs: float | None = None
    logprobs_result: types.LogprobsResult | None = None
    input_transcription: types.Transcription | None = None
    output_transcription: types.Transcription | None = None
    partial: bool | None = None
    turn_complete: bool | None = None
    error_code: str | None = None
    error_message: str | None = None
    interrupted: bool | None = None
    custom_metadata: JsonDict | None = None
    cache_metadata: CacheMetadata | None = None
    interaction_id: str | None = None
    environment_id: str | None = None

    invocation_id: str = ""
    author: str = ""
    actions: EventActions = Field(default_factory=EventActions)
    output: JsonValue = None
    node_info: NodeInfo = Field(default_factory=NodeInfo)
    long_running_tool_ids: set[str] | None = None
    branch: str | None = None
    isolation_scope: str | None = None
    id: str = Field(default_factory=lambda: Event.new_id())
    timestamp: float = Field(default_factory=platform_time.get_time)

    @model_validator(mode="before")
    @classmethod
    def _route_shortcuts(cls, data: Any) -> Any:
        """Move the ``message`` / ``state`` / ``route`` / ``node_path`` shortcuts to their fields.

        The input is never changed (a copy is routed).

        Raises:
            ValueError: Both ``message`` and ``content`` are given.
        """
        if not isinstance(data, dict) or _ROUTED_KWARGS.isdisjoint(data):
            return data
        declared = {
            alias for name, field in cls.model_fields.items() for alias in (name, field.alias)
        }
        routed = {key: data[key] for key in _ROUTED_KWARGS - declared if key in data}
        data = {key: value for key, value in data.items() if key not in routed}
        message = routed.get("message")
        if message is not None:
            if data.get("content") is not None:
                raise ValueError("Event takes message or content, not both (message is content).")
            data["content"] = _as_content(message)
        updates = {
            field: routed[key]
            for key, field in (("state", "state_delta"), ("route", "route"))
            if routed.get(key) is not None
        }
        if updates:
            data["actions"] = _updated(data.get("actions"), EventActions, updates)
        if routed.get("node_path") is not None:
            data["node_info"] = _updated(
                data.get("node_info"), NodeInfo, {"path": routed["node_path"]}
            )
        return data

    @field_serializer("long_running_tool_ids", when_used="json")
    def _sorted_ids(self, ids: set[str] | None) -> list[str] | None:
        return None if ids is None else sorted(ids)

    @property
    def message(self) -> Any:
        """The event's message: its ``content`` (google-adk 2's name for it).

        Set it to a ``Content``, a ``Part``, a string or a list of parts/strings (None clears
        the content). On a subclass that declares a ``message`` field, it is that field.
        """
        if "message" in type(self).model_fields:
            return self.__dict__.get("message")
        return self.content

    @message.setter
    def message(self, value: Any) -> None:
        if "message" in type(self).model_fields:
            self.__pydantic_validator__.validate_assignment(self, "message", value)
        else:
            self.content = None if value is None else _as_content(value)

    @property
    def node_name(self) -> str:
        """The name of the workflow node that made the event (``""`` for an agent-state event)."""
        if self.actions.agent_state or self.actions.end_of_agent:
            return ""
        return self.node_info.name

    @staticmethod
    def new_id() -> str:
        """Return a new event id (a uuid4 string unless :mod:`adk_runtime.platform` says)."""
        return platform_uuid.new_uuid()

    def get_function_calls(self) -> list[types.FunctionCall]:
        """Return the function calls in this event's content, in order."""
        return function_calls(self.content)

    def get_function_responses(self) -> list[types.FunctionResponse]:
        """Return the function responses in this event's content, in order."""
        return function_responses(self.content)

    def has_trailing_code_execution_result(self) -> bool:
        """Return True when the last part of the content is a code execution result."""
        if self.content is None or not self.content.parts:
            return False
        return self.content.parts[-1].code_execution_result is not None

    def is_final_response(self) -> bool:
        """Return True when this event is the agent's final answer for the turn.

        As in google-adk: an event that skips summarization or carries long-running tool ids
        is final, and so is a complete error event without function calls; otherwise it is
        final when it is complete (not partial) and holds no function call, no function
        response and no trailing code execution result.
        """
        if self.actions.skip_summarization or self.long_running_tool_ids:
            return True
        if self.error_code and not self.partial and not self.get_function_calls():
            return True
        return (
            not self.get_function_calls()
            and not self.get_function_responses()
            and not self.partial
            and not self.has_trailing_code_execution_result()
        )


def _as_content(message: Any) -> types.Content:
    """``message`` as a ``Content``, as google-genai reads a content argument.

    A ``Content`` is kept; a dict is read as a ``Content``; a string, a ``Part`` or a list of
    them becomes the parts of a user content (a lone function-call part: a model content).

    Raises:
        TypeError: ``message`` is none of those.
    """
    if isinstance(message, types.Content):
        return message
    if isinstance(message, dict):
        return types.Content.model_validate(message)
    if isinstance(message, types.Part):
        return types.Content(role="model" if message.function_call else "user", parts=[message])
    items = [message] if isinstance(message, str) else message
    if isinstance(items, list) and all(isinstance(item, (str, types.Part)) for item in items):
        parts = [types.Part(text=item) if isinstance(item, str) else item for item in items]
        return types.Content(role="user", parts=parts)
    raise TypeError(
        "An event message is a Content, a Part, a str or a list of them, not "
        f"{type(message).__name__}."
    )


def _updated(current: Any, model: type[BaseModel], updates: dict[str, Any]) -> Any:
    """``current`` (a ``model``, a dict or None) as a dict with ``updates`` applied.

    Anything else is returned as is, for the field's own validation to refuse.
    """
    if current is None:
        return updates
    if isinstance(current, model):
        return {**{name: getattr(current, name) for name in current.model_fields_set}, **updates}
    if isinstance(current, dict):
        return {**current, **updates}
    return current


# A NUL in any string shows up as an unescaped-backslash "\u0000" in the JSON text.
_NUL_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\u0000")


_NO_NODE_INFO: set[str] = {"node_info"}


def event_to_json(event: Event) -> str:
    """Serialize an event for storage (camelCase, no nulls, the shared codec for free values).

    An empty ``node_info`` (every event an agent here makes) is left out: it reads back empty.

    Raises:
        SerializationError: A value cannot be stored; the error names its key path, e.g.
            ``state_delta['bad']['inner']``.
    """
    node = event.node_info
    unset_node = not node.path and node.output_for is None and node.message_as_output is None
    try:
        text = event.model_dump_json(
            by_alias=True, exclude_none=True, exclude=_NO_NODE_INFO if unset_node else None
        )
    except PydanticSerializationError:
        _raise_with_path(event)
        raise SerializationError("event", "the event cannot be serialized") from None
    if "\\u0000" in text and _NUL_ESCAPE.search(text):
        raise SerializationError(
            "event.content", "strings must not contain NUL characters (PostgreSQL rejects them)"
        )
    return text


def _raise_with_path(event: Event) -> None:
    """Re-run the codec on the free-form fields to raise an error that names the key path."""
    fields: dict[str, Any] = {
        "state_delta": event.actions.state_delta,
        "requested_auth_configs": event.actions.requested_auth_configs,
        "requested_tool_confirmations": {
            key: confirmation.payload
            for key, confirmation in event.actions.requested_tool_confirmations.items()
        },
        "agent_state": event.actions.agent_state,
        "render_ui_widgets": [widget.payload for widget in event.actions.render_ui_widgets or []],
        "custom_metadata": event.custom_metadata,
        "output": event.output,
    }
    for name, value in fields.items():
        if value is not None:
            codec.encode_value(value, name)


def event_from_json(data: str | bytes | dict[str, Any]) -> Event:
    """Rebuild an event from :func:`event_to_json` output (text or an already-parsed dict)."""
    if isinstance(data, dict):
        return Event.model_validate(data, context=STORED)
    return Event.model_validate_json(data)


def event_from_stored(payload: str | bytes, session_id: str, position: int) -> Event:
    """Decode a stored event, or raise a typed error naming it (never a raw pydantic error).

    Args:
        payload: The stored JSON text.
        session_id: The session it belongs to (for the message).
        position: Its position among the events read (for the message).

    Raises:
        UnreadableDataError: The stored event does not parse back into an Event.
    """
    try:
        if _STORED_VALIDATOR is not None:
            event: Event = _STORED_VALIDATOR.validate_json(payload)
            return event
        return Event.model_validate_json(payload)
    except (ValueError, RecursionError) as exc:
        name = _stored_id(payload)
        raise UnreadableDataError(
            f"Stored event {name} (#{position} read) of session {session_id!r} cannot be read "
            f"back ({type(exc).__name__}). The session can still be exported "
            "(adk-runtime sessions export) or deleted."
        ) from None


def _stored_id(payload: str | bytes) -> str:
    try:
        found = json.loads(payload).get("id")
    except (ValueError, RecursionError, AttributeError):
        return "with an unreadable id"
    return repr(found) if isinstance(found, str) and len(found) <= 128 else "with an unreadable id"


_STORED_VALIDATOR = _stored_decoder.build(Event, _stored_decoder.sample_payloads(Event))
"""Decodes stored events about twice as fast (see :mod:`._stored_decoder`); None: not alike."""
