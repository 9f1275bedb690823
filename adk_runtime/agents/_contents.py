"""Build the model's view of the conversation from the session history."""

from __future__ import annotations

import json

from google.genai import types

from adk_runtime.events import Event, compaction_view
from adk_runtime.events.rewind import live_events
from adk_runtime.models._call_ids import without_client_ids

__all__ = ["build_contents"]


def build_contents(
    events: list[Event],
    agent_name: str,
    branch: str | None,
    *,
    current_turn_only: bool,
    other_agents_thoughts: bool = False,
) -> list[types.Content]:
    """Return the contents the model sees.

    The agent's own turns (and the user's) are sent as they are; other agents' turns are
    retold as user-side context, so the model does not mistake them for its own. Events of
    other branches are left out. A function call is followed by its responses, also when
    they arrived later (long-running tools). Function-call ids minted by the runtime
    (``adk-…``) are removed, as google-adk does: the model never issued them (the stored
    events keep them, pairing is done above on the events). Events a rewind cancelled are
    left out (:func:`adk_runtime.events.rewind.live_events`). Other agents' thoughts are
    left out unless ``other_agents_thoughts``. A compaction event's summary stands in for the
    events it covers (:func:`adk_runtime.events.compaction_view.view`).
    """
    history = compaction_view.view(live_events(events), agent_name)
    visible = [e for e in history if _has_content(e) and _in_branch(branch, e)]
    if current_turn_only:
        visible = _current_turn(visible, agent_name)
    contents: list[types.Content] = []
    for event in _pair_function_responses(visible):
        assert event.content is not None
        if _is_other_agent(agent_name, event):
            context = _as_context(event, other_agents_thoughts)
            if context is not None:  # nothing to retell: only thoughts, or empty parts
                contents.append(context)
        else:
            contents.append(event.content)
    return without_client_ids(contents)


def _has_content(event: Event) -> bool:
    return not event.partial and event.content is not None and bool(event.content.parts)


def _in_branch(branch: str | None, event: Event) -> bool:
    if not branch or not event.branch:
        return True
    return branch == event.branch or branch.startswith(event.branch + ".")


def _is_other_agent(agent_name: str, event: Event) -> bool:
    return bool(event.author) and event.author not in (agent_name, "user")


def _current_turn(events: list[Event], agent_name: str) -> list[Event]:
    for index in range(len(events) - 1, -1, -1):
        event = events[index]
        if event.author == "user" or _is_other_agent(agent_name, event):
            return events[index:]
    return []


def _pair_function_responses(events: list[Event]) -> list[Event]:
    """Move every function response right after its call, one merged event per call event."""
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
            result.append(_merge_responses([events[i] for i in moving[index]]))
    return result


def _merge_responses(events: list[Event]) -> Event:
    """One event holding every part of ``events``, one response per call id.

    A later response to a call takes the place of the earlier one; the other parts (text
    sent with a response) are kept, in order.
    """
    parts: list[types.Part] = []
    response_at: dict[str, int] = {}
    for event in events:
        for part in event.content.parts or [] if event.content else []:
            response = part.function_response
            if response is None:
                parts.append(part)
            elif (call_id := response.id or "") in response_at:
                parts[response_at[call_id]] = part
            else:
                response_at[call_id] = len(parts)
                parts.append(part)
    last = events[-1]
    assert last.content is not None
    content = last.content.model_copy(update={"parts": parts})
    return Event(author=last.author, content=content, branch=last.branch)


def _as_context(event: Event, thoughts: bool) -> types.Content | None:
    """Another agent's turn retold as user-side context; None when there is nothing to tell."""
    assert event.content is not None
    parts = [types.Part(text="For context:")]
    for part in event.content.parts or []:
        if _is_empty(part):
            continue
        if part.thought:
            if thoughts and part.text:
                parts.append(types.Part(text=f"[{event.author}] thought: {part.text}"))
            continue
        if part.text:
            parts.append(types.Part(text=f"[{event.author}] said: {part.text}"))
        elif part.function_call is not None:
            call = part.function_call
            args = json.dumps(call.args or {}, default=str)
            parts.append(types.Part(text=f"[{event.author}] called tool `{call.name}` with {args}"))
        elif part.function_response is not None:
            response = part.function_response
            result = json.dumps(response.response or {}, default=str)
            parts.append(
                types.Part(text=f"[{event.author}] tool `{response.name}` returned {result}")
            )
        else:
            parts.append(part)
    if len(parts) == 1:
        return None
    return types.Content(role="user", parts=parts)


def _is_empty(part: types.Part) -> bool:
    """A part that carries nothing (an empty text, with or without a thought flag)."""
    return not part.text and set(part.model_dump(exclude_none=True)) <= {"text", "thought"}
