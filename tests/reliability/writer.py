"""A writer process for the crash tests: appends to one session until it is killed.

Run as ``python -m tests.reliability.writer STORE_JSON APP USER SESSION RUN``. It prints
``ready`` once the service is open, then, for each append, ``try <id>`` before the call and
``ack <id>`` once it returned (each line flushed), so the parent knows exactly which appends
were acknowledged when it SIGKILLs the process at a random moment.

Event ``n`` of the session (its sequence) carries deltas on all three scopes; :func:`fold`
rebuilds the state those deltas must leave behind.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from adk_runtime.events import Event, EventActions
from tests.stores import Store


def delta_for(n: int, event_id: str) -> dict[str, Any]:
    """The state delta of the session's ``n``-th event."""
    return {
        "n": n,
        f"k{n}": event_id,
        "last": event_id,
        "user:n": n,
        f"user:k{n % 5}": event_id,
        "app:n": n,
        f"app:k{n % 3}": [n, event_id],
    }


def parse_n(event_id: str) -> int:
    """The sequence number an event id was written for (ids are ``<run>-<n>``)."""
    return int(event_id.rsplit("-", 1)[1])


def fold(initial: dict[str, Any], events: list[Event]) -> dict[str, Any]:
    """The merged state that ``initial`` plus the events' deltas, in order, must give."""
    state = dict(initial)
    for event in events:
        state.update(event.actions.state_delta)
    return state


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def main(store: Store, app: str, user: str, session_id: str, run: str) -> None:
    """Append to the session forever (until killed)."""
    service = store.open()
    session = await service.get_session(app_name=app, user_id=user, session_id=session_id)
    if session is None:
        raise SystemExit(f"session {session_id} is missing")
    _say("ready")
    while True:
        n = session.revision + 1
        event_id = f"{run}-{n}"
        event = Event(
            id=event_id,
            author="writer",
            invocation_id=run,
            actions=EventActions(state_delta=delta_for(n, event_id)),
        )
        _say(f"try {event_id}")
        await service.append_event(session, event)
        _say(f"ack {event_id}")


if __name__ == "__main__":
    _store, _app, _user, _sid, _run = sys.argv[1:6]
    asyncio.run(main(Store.from_json(_store), _app, _user, _sid, _run))
