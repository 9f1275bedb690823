"""What a RemoteA2aAgent sends: the session's new turns as A2A parts, answers to the peer.

The peer keeps its own session (keyed by the A2A context id), so only the events since its
last answer are sent; other agents' turns are retold as quoted text (as a model is told them,
``agents._quoting``), and credentials never leave.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from google.genai import types as genai_types

from adk_runtime.a2a import _compat
from adk_runtime.a2a._compat import Part as A2APart
from adk_runtime.a2a.converters.part_converter import GenAIPartToA2APartConverter
from adk_runtime.a2a.converters.to_adk_event import (
    MOCK_FUNCTION_CALL_FOR_REQUIRED_USER_AUTH,
    MOCK_FUNCTION_CALL_FOR_REQUIRED_USER_INPUT,
)
from adk_runtime.agents._quoting import retell
from adk_runtime.events import Event

A2A_METADATA_PREFIX = "a2a:"

_MOCK_CALL_NAMES = frozenset(
    {MOCK_FUNCTION_CALL_FOR_REQUIRED_USER_INPUT, MOCK_FUNCTION_CALL_FOR_REQUIRED_USER_AUTH}
)
_CREDENTIAL_CALL_NAMES = frozenset(
    {"adk_request_credential", MOCK_FUNCTION_CALL_FOR_REQUIRED_USER_AUTH}
)
_CREDENTIAL_KEYS = frozenset(
    {
        "auth_scheme",
        "authScheme",
        "raw_auth_credential",
        "rawAuthCredential",
        "exchanged_auth_credential",
        "exchangedAuthCredential",
    }
)
_PAUSED_STATES = frozenset({"TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED"})


def _looks_like_auth_config(value: Any) -> bool:
    if isinstance(value, dict) and set(value) == {"result"}:
        value = value["result"]
    return isinstance(value, dict) and not _CREDENTIAL_KEYS.isdisjoint(value)


def is_credential_part(part: genai_types.Part) -> bool:
    """Whether the part is a credential request or answer (never sent to a peer)."""
    if part.function_response is not None:
        response = part.function_response
        return response.name in _CREDENTIAL_CALL_NAMES or _looks_like_auth_config(response.response)
    if part.function_call is not None:
        call = part.function_call
        args = call.args or {}
        return call.name in _CREDENTIAL_CALL_NAMES or any(
            _looks_like_auth_config(args.get(key)) for key in ("authConfig", "auth_config")
        )
    return False


def without_credentials(event: Event) -> Event:
    """``event``, or a copy without its credential parts."""
    parts = event.content.parts or [] if event.content else []
    if not any(is_credential_part(part) for part in parts):
        return event
    copy = event.model_copy(deep=True)
    assert copy.content is not None
    copy.content.parts = [part for part in parts if not is_credential_part(part)]
    return copy


def as_list(converted: Any) -> list[Any]:
    """A converter's result as a list (converters may give one item, a list or None)."""
    if isinstance(converted, list):
        return converted
    return [converted] if converted is not None else []


def _retold(event: Event) -> list[genai_types.Part]:
    """Another agent's turn as the model would be told it: quoted, its thoughts left out."""
    content = retell(event)
    return list(content.parts or []) if content is not None else []


def is_peer_response(event: Event, agent_name: str) -> bool:
    """Whether ``event`` is an answer of the peer (recorded by the agent named so)."""
    metadata = event.custom_metadata or {}
    return event.author == agent_name and bool(metadata.get(A2A_METADATA_PREFIX + "response"))


def message_parts_from_session(
    events: Sequence[Event],
    agent_name: str,
    part_converter: GenAIPartToA2APartConverter,
    *,
    full_history_when_stateless: bool,
) -> tuple[list[A2APart], str | None]:
    """The parts of the next request and the A2A context id of the peer's last answer.

    Walks back to the peer's last answer: a peer that gave a context id holds everything
    before it; without one (a stateless peer) and ``full_history_when_stateless``, the
    whole session is sent.
    """
    new_events: list[Event] = []
    context_id: str | None = None
    for event in reversed(events):
        if is_peer_response(event, agent_name):
            found = (event.custom_metadata or {}).get(A2A_METADATA_PREFIX + "context_id")
            context_id = found if isinstance(found, str) else None
            if context_id or not full_history_when_stateless:
                break
        new_events.append(event)
    peer_call_ids = {
        call.id
        for event in events
        if event.author == agent_name
        for call in event.get_function_calls()
        if call.id
    }
    parts: list[A2APart] = []
    for event in reversed(new_events):
        parts.extend(
            _event_parts(without_credentials(event), agent_name, part_converter, peer_call_ids)
        )
    return parts, context_id


def _event_parts(
    event: Event,
    agent_name: str,
    part_converter: GenAIPartToA2APartConverter,
    peer_call_ids: set[str],
) -> list[A2APart]:
    if event.author not in ("user", agent_name):
        genai_parts = _retold(event)
    else:
        genai_parts = list(event.content.parts or []) if event.content else []
    result: list[A2APart] = []
    for part in genai_parts:
        response = part.function_response
        if response is not None and response.id not in peer_call_ids:
            # The peer cannot resume a call it never made: tell it as text.
            text = f"Tool {response.name} returned: {json.dumps(response.response, default=str)}"
            converted = [_compat.make_text_part(text)]
        else:
            converted = as_list(part_converter(part))
        if event.author == "user":
            for a2a_part in converted:
                meta = _compat.part_metadata(a2a_part)
                meta["is_user_input"] = True
                _compat.set_part_metadata(a2a_part, meta)
        result.extend(converted)
    return result


def _answer_text(response: dict[str, Any] | None) -> str | None:
    if not response:
        return None
    if set(response) == {"result"}:
        value = response["result"]
        return None if value is None else str(value)
    return json.dumps(response, default=str)


def answer_for_peer(answer: Event, call_event: Event) -> Event:
    """The user's answer to a pause of the peer, as the peer should receive it.

    Credentials are dropped; an answer to a question the peer asked in text (an
    input-required pause turned into a mock call here) becomes text again.
    """
    names_by_id = {call.id: call.name for call in call_event.get_function_calls()}
    parts: list[genai_types.Part] = []
    for part in (answer.content.parts or []) if answer.content else []:
        response = part.function_response
        if response is None:
            parts.append(part)
        elif is_credential_part(part) or names_by_id.get(response.id) in _CREDENTIAL_CALL_NAMES:
            continue
        elif names_by_id.get(response.id) in _MOCK_CALL_NAMES:
            text = _answer_text(response.response)
            if text is not None:
                parts.append(genai_types.Part(text=text))
        else:
            parts.append(part)
    copy = answer.model_copy(deep=True)
    copy.content = genai_types.Content(role="user", parts=parts)
    return copy


def resumable_task_id(
    events: Sequence[Event], agent_name: str, context_id: str | None
) -> str | None:
    """The peer's task paused for input in ``context_id`` (to continue it), or None."""
    if not context_id:
        return None
    for event in reversed(events):
        if not is_peer_response(event, agent_name):
            continue
        metadata = event.custom_metadata or {}
        if metadata.get(A2A_METADATA_PREFIX + "context_id") != context_id:
            return None
        response = metadata.get(A2A_METADATA_PREFIX + "response")
        status = response.get("status") if isinstance(response, dict) else None
        if not isinstance(status, dict) or status.get("state") not in _PAUSED_STATES:
            return None
        task_id = metadata.get(A2A_METADATA_PREFIX + "task_id")
        return task_id if isinstance(task_id, str) else None
    return None


ContextBuilder = Callable[[Any, str, GenAIPartToA2APartConverter], tuple[list[A2APart], str | None]]
