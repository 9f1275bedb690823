"""The client's answers to the runtime's own calls (confirmation and credential requests)."""

from __future__ import annotations

from typing import Any

from adk_runtime.events import Event

__all__ = ["latest_answers"]


def latest_answers(events: list[Event], name: str) -> tuple[int, dict[str, Any], bool]:
    """The last user event's answers to ``name`` calls, by call id, as the client sent them.

    Returns:
        That event's index (-1 when there is no user event), the responses by id, and
        whether the event also answers other calls.
    """
    for index in range(len(events) - 1, -1, -1):
        event = events[index]
        if event.author != "user":
            continue
        if event.content is None:  # nothing in it, so no answers
            return index, {}, False
        answers: dict[str, Any] = {}
        others = False
        for response in event.get_function_responses():
            if response.name != name:
                others = True
            elif response.id:
                answers[response.id] = response.response
        return index, answers, others
    return -1, {}, False
