"""The reference model of the model-based test: what the store must hold, in plain Python.

The model knows which sessions exist, the ids of the events each one committed (in commit
order), each session's state at creation, the app and user state (the fold of every committed
event's ``app:``/``user:`` delta and every creation's, in commit order), and the artifact
uploads that must stay loadable. A rule tells it what it did (:meth:`Reference.created`,
:meth:`Reference.forget`) and what the store acknowledged (:meth:`Reference.adopt`); the
checks of the machine compare the store with it after every step.

Idle TTL makes time part of the model: a session last written more than ``TTL - SLACK`` ago
*may* have expired (a reader that finds it gone is right), and one not touched for
``TTL + SLACK`` and not held surely has.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from typing import Any

from adk_runtime.events import Event
from adk_runtime.sessions import Session
from adk_runtime.sessions.state import State, split_state_delta
from tests.reliability.model_support import SLACK, TTL, Key

_serials = itertools.count(1)


@dataclasses.dataclass
class RefSession:
    """One session as the model knows it.

    Attributes:
        base: Its session-scoped state at creation (a fork's and an import's: its source's,
            which the store carries along).
        ids: The ids of its committed events, in commit order.
        copied: Ids it did not commit itself (copied by a fork, replayed by an import): their
            turns ran elsewhere.
        serial: Which incarnation this is (a re-created session gets a new one).
        written: ``time.monotonic()`` when the last acknowledged write to it started.
    """

    base: dict[str, Any]
    ids: list[str] = dataclasses.field(default_factory=list)
    copied: set[str] = dataclasses.field(default_factory=set)
    serial: int = dataclasses.field(default_factory=lambda: next(_serials))
    written: float = dataclasses.field(default_factory=time.monotonic)


@dataclasses.dataclass(frozen=True)
class Upload:
    """An artifact version saved directly through the artifact service (no event names it)."""

    key: Key
    serial: int
    position: int
    filename: str
    version: int
    text: str


def session_scope(state: dict[str, Any]) -> dict[str, Any]:
    """The session-scoped keys of a merged state."""
    prefixes = (State.APP_PREFIX, State.USER_PREFIX, State.TEMP_PREFIX)
    return {k: v for k, v in state.items() if not k.startswith(prefixes)}


def fold(base: dict[str, Any], events: list[Event]) -> dict[str, Any]:
    """The session-scoped state ``base`` becomes once ``events`` are applied in order."""
    state = dict(base)
    for event in events:
        state.update(split_state_delta(event.actions.state_delta)[0])
    return state


class Reference:
    """What the store must hold (see the module docstring)."""

    def __init__(self, ttl: bool) -> None:
        self.ttl = ttl
        self.sessions: dict[Key, RefSession] = {}
        self.app_state: dict[str, Any] = {}
        self.user_state: dict[str, dict[str, Any]] = {}
        self.uploads: list[Upload] = []
        self.dead_until: dict[Key, float] = {}
        """When a dead holder's lease has surely run out (monotonic time)."""

    def may_have_expired(self, key: Key) -> bool:
        ref = self.sessions.get(key)
        return self.ttl and ref is not None and time.monotonic() - ref.written > TTL - SLACK

    def held_by_the_dead(self, key: Key) -> bool:
        """Whether a dead holder's lease may still run on ``key``."""
        return time.monotonic() < self.dead_until.get(key, 0.0)

    def created(self, key: Key, state: dict[str, Any], started: float) -> RefSession:
        """A session was created with ``state`` (its ``user:`` keys go to the user's state)."""
        _session, app, user, _temp = split_state_delta(state)
        self.app_state.update(app)
        self.user_state.setdefault(key[0], {}).update(user)
        ref = RefSession(base=session_scope(state), written=started)
        self.sessions[key] = ref
        return ref

    def forget(self, key: Key) -> None:
        """The session is gone (deleted, pruned or expired); app and user state stay."""
        self.sessions.pop(key, None)
        self.dead_until.pop(key, None)

    def adopt(
        self,
        key: Key,
        stored: Session,
        acked: list[str],
        started: float,
        *,
        may_add: bool,
        shared: bool = True,
    ) -> None:
        """Take in what a rule's operation committed to ``key``; check nothing was lost.

        Args:
            key: The session.
            stored: The session read back after the operation.
            acked: The ids of the events the operation acknowledged, in order.
            started: When the operation started (``time.monotonic()``).
            may_add: Whether the operation may also have committed events it did not
                acknowledge (a turn's user message, a resumed invocation's events).
            shared: Whether the new events' ``app:``/``user:`` deltas changed the app and user
                state (False for events copied or replayed from elsewhere).
        """
        ref = self.sessions[key]
        ids = [event.id for event in stored.events]
        assert ids[: len(ref.ids)] == ref.ids, (
            f"{key}: acknowledged events lost or reordered: {ref.ids} -> {ids}"
        )
        new = stored.events[len(ref.ids) :]
        missing = [i for i in acked if i not in ids]
        assert not missing, f"{key}: acknowledged events not stored: {missing}"
        if not may_add:
            assert [e.id for e in new] == acked, f"{key}: unacknowledged events stored"
        if shared:
            for event in new:
                _session, app, user, _temp = split_state_delta(event.actions.state_delta)
                self.app_state.update(app)
                self.user_state.setdefault(key[0], {}).update(user)
        ref.ids = ids
        if new:
            ref.written = started

    def droppable_uploads(self, key: Key, position: int) -> None:
        """A rewind of ``key`` to before event ``position``: later uploads may go."""
        serial = self.sessions[key].serial
        self.uploads = [
            u
            for u in self.uploads
            if not (u.key == key and u.serial == serial and u.position > position)
        ]
