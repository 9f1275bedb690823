"""A racing process: mixes appends, stale appends, retries, reads, listing and deletes.

Run as ``python -m tests.reliability.racer STORE_JSON WORKER SESSIONS SECONDS SEED``
(``SESSIONS`` is a comma-separated list of ``user/session`` keys under app ``race``). Once
its service is connected it prints ``ready`` and waits for a line on stdin, so that all the
racers start together; then it races for ``SECONDS``. At the end it prints one JSON line: the
acknowledged event ids per session, how many appends were refused as stale, and every
unexpected error (there must be none: the only error a race may produce is
``StaleSessionError``).
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time
import traceback
from typing import Any

from adk_runtime.errors import StaleSessionError
from adk_runtime.events import Event, EventActions
from adk_runtime.sessions import BaseSessionService, GetSessionConfig, Session
from tests.stores import Store

APP = "race"


def event_delta(event_id: str) -> dict[str, Any]:
    """The delta of a racing event: one new key per scope, plus ``last``."""
    return {f"k-{event_id}": 1, "last": event_id, f"user:k-{event_id}": 1, f"app:k-{event_id}": 1}


class Racer:
    """One process's share of the race."""

    def __init__(self, service: BaseSessionService, worker: int, keys: list[str], seed: int):
        self.service = service
        self.worker = worker
        self.keys = [tuple(key.split("/")) for key in keys]
        self.rng = random.Random(seed)
        self.count = 0
        self.ops = 0
        self.acked: dict[str, list[str]] = {key: [] for key in keys}
        self.stale = 0
        self.retried = 0
        self.unexpected: list[str] = []
        self.held: dict[tuple[str, ...], Session] = {}

    def _event(self) -> Event:
        self.count += 1
        event_id = f"w{self.worker}-{self.count}"
        return Event(
            id=event_id,
            author=f"w{self.worker}",
            actions=EventActions(state_delta=event_delta(event_id)),
        )

    async def _load(self, key: tuple[str, ...], recent: int | None = 0) -> Session:
        config = GetSessionConfig(num_recent_events=recent)
        session = await self.service.get_session(
            app_name=APP, user_id=key[0], session_id=key[1], config=config
        )
        assert session is not None, f"shared session {key} vanished"
        return session

    async def append(self, key: tuple[str, ...]) -> None:
        """Append one event, reloading after each stale refusal until it commits."""
        event = self._event()
        for _ in range(50):
            session = await self._load(key)
            try:
                await self.service.append_event(session, event)
            except StaleSessionError:
                self.stale += 1
                continue
            self.acked["/".join(key)].append(event.id)
            self.held[key] = session
            if self.rng.random() < 0.2:  # a retry after a "lost acknowledgement"
                again = await self._load(key)
                await self.service.append_event(again, event.model_copy(deep=True))
                self.retried += 1
            return

    async def stale_append(self, key: tuple[str, ...]) -> None:
        """Append through a session object loaded earlier (usually stale by now)."""
        session = self.held.get(key) or await self._load(key)
        event = self._event()
        try:
            await self.service.append_event(session, event)
        except StaleSessionError:
            self.stale += 1
            self.held.pop(key, None)
        else:
            self.acked["/".join(key)].append(event.id)

    async def read(self, key: tuple[str, ...]) -> None:
        """Read the last events and check they are in order and below the revision."""
        session = await self._load(key, recent=5)
        assert len(session.events) <= min(5, session.revision)
        if session.events:
            assert session.state["last"] == session.events[-1].id, "state ahead of events"

    async def list_all(self) -> None:
        """Page through every session of the app."""
        token = None
        for _ in range(100):
            page = await self.service.list_sessions(app_name=APP, page_size=3, page_token=token)
            assert all(not s.events for s in page.sessions)
            token = page.next_page_token
            if token is None:
                return

    async def scratch(self) -> None:
        """Create, append to and delete a private session."""
        sid = f"scratch-{self.worker}-{self.count}"
        session = await self.service.create_session(app_name=APP, user_id="u0", session_id=sid)
        await self.service.append_event(session, Event(author="x"))
        await self.service.delete_session(app_name=APP, user_id="u0", session_id=sid)
        gone = await self.service.get_session(app_name=APP, user_id="u0", session_id=sid)
        assert gone is None, "deleted session still readable"
        self.count += 1

    async def step(self) -> None:
        """One random operation."""
        self.ops += 1
        roll = self.rng.random()
        key = self.rng.choice(self.keys)
        if roll < 0.45:
            await self.append(key)
        elif roll < 0.65:
            await self.stale_append(key)
        elif roll < 0.8:
            await self.read(key)
        elif roll < 0.9:
            await self.list_all()
        else:
            await self.scratch()


async def main(store: Store, worker: int, keys: list[str], seconds: float, seed: int) -> None:
    """Race for ``seconds`` once told to start, and print the outcome as JSON."""
    async with store.open() as service:
        racer = Racer(service, worker, keys, seed)
        await racer.read(racer.keys[0])  # connected and warm
        sys.stdout.write("ready\n")
        sys.stdout.flush()
        await asyncio.to_thread(sys.stdin.readline)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                await racer.step()
            except Exception as exc:  # every unexpected error is reported, not raised
                racer.unexpected.append(
                    f"{type(exc).__module__}.{type(exc).__name__}: {exc}\n"
                    + "".join(traceback.format_exception(exc)[-3:])
                )
    result = {
        "ops": racer.ops,
        "acked": racer.acked,
        "stale": racer.stale,
        "retried": racer.retried,
        "unexpected": racer.unexpected,
    }
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    _store, _worker, _keys, _seconds, _seed = sys.argv[1:6]
    asyncio.run(
        main(Store.from_json(_store), int(_worker), _keys.split(","), float(_seconds), int(_seed))
    )
