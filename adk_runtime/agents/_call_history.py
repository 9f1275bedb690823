"""Function calls and responses in the history a model is sent: each call with its answer.

Models want every function response right after the call it answers, and providers that
pair them by id (Anthropic, OpenAI) refuse a history with a response no call asked for or a
call left without an answer. The steps here put the session's events in that shape; they
never change a stored event (a changed event is a copy).
"""

from __future__ import annotations

import logging

from google.genai import types

from adk_runtime.events import Event

__all__ = [
    "drop_answers",
    "drop_unanswered_calls",
    "drop_unasked_responses",
    "pair_function_responses",
    "restore_hidden_calls",
    "settle_latest_response",
]

logger = logging.getLogger(__name__)


def restore_hidden_calls(view: list[Event], source: list[Event]) -> list[Event]:
    """Put back the calls a compaction summary hid while their responses stayed visible.

    A long-running call summarised before its answer arrived would leave the answer without
    its call. The call's whole event (every part, so a thought signature on its first part
    survives) goes back right before the answer, followed by the latest response to each
    sibling call of that event that ``view`` does not answer. ``view`` itself is returned
    when nothing is missing.

    Args:
        view: The events as the model would see them (summaries in place).
        source: The events before compaction was applied, in commit order.
    """
    asked = {call.id for event in view for call in event.get_function_calls() if call.id}
    answered = {r.id for event in view for r in event.get_function_responses() if r.id}
    missing = answered - asked
    if not missing:
        return view
    call_event_of = {
        call.id: event for event in source for call in event.get_function_calls() if call.id
    }
    latest_response: dict[str, Event] = {}
    for event in source:
        for response in event.get_function_responses():
            if response.id:
                latest_response[response.id] = event
    result: list[Event] = []
    for event in view:
        for response in event.get_function_responses():
            call_event = call_event_of.get(response.id or "")
            if response.id not in missing or call_event is None:
                continue
            calls = {call.id for call in call_event.get_function_calls() if call.id}
            missing -= calls
            result.append(call_event)
            siblings = [latest_response[c] for c in calls - answered if c in latest_response]
            result.extend(e for e in source if any(e is sibling for sibling in siblings))
        result.append(event)
    return result


def drop_unasked_responses(events: list[Event]) -> list[Event]:
    """``events`` without the function responses no earlier call asked for.

    Such a response comes from a session edited by hand or stitched from several sources;
    providers refuse it. A response without an id matches an id-less call of its name.
    """
    seen_ids: set[str] = set()
    seen_names: set[str] = set()
    dropped: list[str] = []
    result: list[Event] = []
    for event in events:
        kept: Event | None = event
        if event.get_function_responses():
            parts = [
                part
                for part in _parts(event)
                if part.function_response is None
                or _asked(part.function_response, seen_ids, seen_names)
            ]
            dropped.extend(
                r.id or r.name or "?"
                for r in event.get_function_responses()
                if not _asked(r, seen_ids, seen_names)
            )
            kept = _with_parts(event, parts)
        if kept is None:
            continue
        result.append(kept)
        for call in kept.get_function_calls():
            if call.id:
                seen_ids.add(call.id)
            elif call.name:
                seen_names.add(call.name)
    if dropped:
        logger.warning("Function responses without a call left out of the request: %s", dropped)
    return result


def drop_answers(events: list[Event], call_ids: set[str]) -> list[Event]:
    """``events`` without the function responses to ``call_ids`` (and events left empty)."""
    if not call_ids:
        return events
    result: list[Event] = []
    for event in events:
        parts = [
            part
            for part in _parts(event)
            if part.function_response is None or part.function_response.id not in call_ids
        ]
        kept = _with_parts(event, parts)
        if kept is not None:
            result.append(kept)
    return result


def drop_unanswered_calls(events: list[Event]) -> list[Event]:
    """``events`` without the function calls that no response answers.

    A turn cut short (a crash, a new message before the tools ran) leaves such calls, and
    providers refuse them. Calls without an id, and long-running calls (their answer may
    still come), stay.
    """
    answered = {r.id for event in events for r in event.get_function_responses() if r.id}
    waiting = {call_id for event in events for call_id in event.long_running_tool_ids or ()}
    keep = answered | waiting
    dropped: list[str] = []
    result: list[Event] = []
    for event in events:
        calls = event.get_function_calls()
        if not calls or all(not c.id or c.id in keep for c in calls):
            result.append(event)
            continue
        dropped.extend(c.id for c in calls if c.id and c.id not in keep)
        kept = [
            part
            for part in _parts(event)
            if part.function_call is None
            or not part.function_call.id
            or part.function_call.id in keep
        ]
        changed = _with_parts(event, kept)
        if changed is not None:
            result.append(changed)
    if dropped:
        logger.warning("Function calls without a response left out of the request: %s", dropped)
    return result


def settle_latest_response(events: list[Event]) -> list[Event]:
    """When the last event answers an older call, send that call's exchange only.

    The answer to a long-running call arrives after other events (the model's "still
    working" reply, progress updates). The events after the call are left out, and the
    call's responses (the updates, then the last event) become one response event right
    after the call; a later response to a call replaces an earlier one.
    """
    if len(events) < 2 or not events[-1].get_function_responses():
        return events
    last = events[-1]
    owners = {_call_index(events, len(events) - 1, r) for r in last.get_function_responses()}
    if len(owners) != 1:
        return events
    call_index = owners.pop()
    if call_index < 0 or call_index == len(events) - 2:
        return events
    updates = [
        event
        for index in range(call_index + 1, len(events) - 1)
        if (event := events[index]).get_function_responses()
        and all(_call_index(events, index, r) == call_index for r in event.get_function_responses())
    ]
    return [*events[: call_index + 1], merge_responses([*updates, last])]


def pair_function_responses(events: list[Event]) -> list[Event]:
    """Move every function response right after its call, one merged event per call event.

    ``events`` itself is returned when every response already follows its call.
    """
    owner: dict[str, int] = {}
    answers: dict[int, list[int]] = {}
    for index, event in enumerate(events):
        for call in event.get_function_calls():
            if call.id:
                owner[call.id] = index
        responses = event.get_function_responses()
        if responses:
            owners = {owner.get(response.id or "", -1) for response in responses}
            if len(owners) == 1 and (call_index := owners.pop()) >= 0:
                answers.setdefault(call_index, []).append(index)
    moving = {
        call_index: indexes
        for call_index, indexes in answers.items()
        if indexes != [call_index + 1]
    }
    if not moving:
        return events
    moved = {index for indexes in moving.values() for index in indexes}
    result: list[Event] = []
    for index, event in enumerate(events):
        if index in moved:
            continue
        result.append(event)
        if index in moving:
            result.append(merge_responses([events[i] for i in moving[index]]))
    return result


def merge_responses(events: list[Event]) -> Event:
    """One event holding every part of ``events``, one response per call id.

    A later response to a call takes the place of the earlier one; the other parts (text
    sent with a response) are kept, in order.
    """
    parts: list[types.Part] = []
    response_at: dict[str, int] = {}
    for event in events:
        for part in _parts(event):
            response = part.function_response
            if response is None:
                parts.append(part)
            elif (call_id := response.id or "") in response_at:
                parts[response_at[call_id]] = part
            else:
                response_at[call_id] = len(parts)
                parts.append(part)
    last = events[-1]
    if len(events) == 1:
        return last
    assert last.content is not None
    content = last.content.model_copy(update={"parts": parts})
    return Event(author=last.author, content=content, branch=last.branch)


def _call_index(events: list[Event], before: int, response: types.FunctionResponse) -> int:
    """The index of the latest event before ``before`` holding the call ``response`` answers."""
    for index in range(before - 1, -1, -1):
        for call in events[index].get_function_calls():
            if (response.id and call.id == response.id) or (
                not response.id and not call.id and response.name and call.name == response.name
            ):
                return index
    return -1


def _asked(response: types.FunctionResponse, ids: set[str], names: set[str]) -> bool:
    if response.id:
        return response.id in ids
    return bool(response.name) and response.name in names


def _parts(event: Event) -> list[types.Part]:
    return list(event.content.parts or []) if event.content is not None else []


def _with_parts(event: Event, parts: list[types.Part]) -> Event | None:
    """``event`` with ``parts`` (a copy when they differ); None when no part is left."""
    if not parts:
        return None
    if len(parts) == len(_parts(event)):
        return event
    assert event.content is not None
    content = event.content.model_copy(update={"parts": parts})
    return event.model_copy(update={"content": content})
