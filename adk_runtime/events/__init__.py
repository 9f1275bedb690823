"""Events and their actions (``google.adk.events`` → ``adk_runtime.events``)."""

from adk_runtime.events.event import Event, event_from_json, event_from_stored, event_to_json
from adk_runtime.events.event_actions import EventActions

__all__ = ["Event", "EventActions", "event_from_json", "event_from_stored", "event_to_json"]
