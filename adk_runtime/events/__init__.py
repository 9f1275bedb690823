"""Events and their actions (``google.adk.events`` → ``adk_runtime.events``)."""

from adk_runtime.events.event import Event, event_from_json, event_from_stored, event_to_json
from adk_runtime.events.event_actions import EventActions
from adk_runtime.events.request_input import RequestInput

__all__ = [
    "Event",
    "EventActions",
    "RequestInput",
    "event_from_json",
    "event_from_stored",
    "event_to_json",
]
