"""Event compaction after an invocation (google-adk's ``apps.compaction``).

The rules are :mod:`adk_runtime.agents._compaction`'s; the Runner calls
:func:`compact_after_invocation` once an invocation has yielded its last event.
"""

from __future__ import annotations

from adk_runtime.agents._compaction import events_to_summarize, summarize_due
from adk_runtime.apps.app import App
from adk_runtime.events import Event

__all__ = ["compact_after_invocation", "events_to_summarize"]


async def compact_after_invocation(app: App, events: list[Event]) -> Event | None:
    """The compaction event due after an invocation of ``app``, or None (see ``summarize_due``)."""
    config = app.events_compaction_config
    if config is None or app.root_agent is None:
        return None
    return await summarize_due(config, app.root_agent, events)
