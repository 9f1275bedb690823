"""Forking a session: a new session holding a prefix of another's events and its state then.

``fork_session`` (on every service) reads the source once, finds the fork point (its last
event, or ``at_event_id``), computes the session-scoped state as of that point, and hands a
:class:`PreparedFork` to the backend's one atomic step, which checks that the source is still
the incarnation it read and holds that prefix, that the new key is free, and writes the new
session row (revision = the number of events copied) and the copied events (same ids,
sequences, timestamps and JSON) together. App and user state are shared, not copied: they
belong to the app and the user, not to a session.

**The state as of a point** (a fork's, a rewind's: :func:`session_state_at`) is the
session's *creation state* (the session-scoped state it was created with, kept with the
session by every store and read only here, never by ``get_session``) folded with the
session-scoped deltas of every event up to the point, in order. Rewind events count like any
other: a rewind's delta already reverts what the events it rewound wrote, so their deltas
count only until it. This is the session's state as it was right after that event: the
stored state is the same fold over every event. The fork keeps the source's creation state
(and the copied events), so its own state is that fold too, and a fork or a rewind of the
fork is right as well.

A session whose creation state is unknown (created before the stores kept it: a SQL row from
before migration 0006, a Redis session without the ``init`` field, an import of an older
export) keeps the older rule: the current state with every key that a later event wrote
replaced by the fold of the earlier events' deltas. There a key set only by
``create_session(state=…)`` and changed after the point is absent (a fork drops it, a rewind
sets it to None); its forks stay "unknown" too.

**Artifacts** follow when an artifact service is given (``fork_session(...,
artifact_service=…)``; the HTTP server and the CLI give theirs): once the fork is written,
the service copies each session artifact with its versions up to the one current at the fork
point, under the same numbers (:meth:`BaseArtifactService.fork_session_artifacts`), so every
version the fork's history names loads in the fork, and the two sessions' artifacts are
independent from then on. ``user:`` artifacts are the user's, shared, not copied. If the
copy fails, the fork is deleted again and the error raised: a fork is never left naming
artifacts it cannot load.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Protocol

from adk_runtime import codec
from adk_runtime.errors import EventNotFoundError, SessionNotFoundError
from adk_runtime.events import Event
from adk_runtime.sessions._validation import validate_id, validate_session_key
from adk_runtime.sessions.session import Session
from adk_runtime.sessions.state import State, split_state_delta

__all__ = [
    "CreationStates",
    "ForkArtifacts",
    "ForkStore",
    "PreparedFork",
    "creation_state",
    "fork",
    "session_state_at",
]

_SCOPED = (State.APP_PREFIX, State.USER_PREFIX, State.TEMP_PREFIX)


class ForkArtifacts(Protocol):
    """What a fork needs of an artifact service (``BaseArtifactService`` has it)."""

    async def fork_session_artifacts(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        new_session_id: str,
        events: Sequence[Event],
        position: int,
    ) -> None:
        """Copy the session's artifacts as of ``events[:position]`` into the new session."""
        ...


class CreationStates(Protocol):
    """The storage step that reads a creation state (every ``BaseSessionService`` has it)."""

    async def _creation_state(
        self, key: tuple[str, str, str], incarnation: str | None
    ) -> dict[str, Any] | None:
        """The session's creation state as stored (values encoded); None when unknown."""
        ...


class ForkStore(CreationStates, Protocol):
    """What a fork needs of a session service (every ``BaseSessionService`` has it).

    The two storage steps' contracts are on ``BaseSessionService``.
    """

    async def get_session(self, *, app_name: str, user_id: str, session_id: str) -> Session | None:
        """Read the session with every event, or None."""
        ...

    async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
        """Delete the session (a fork whose artifacts could not follow it)."""
        ...

    async def _fork_session(self, key: tuple[str, str, str], prepared: PreparedFork) -> None:
        """Write the fork atomically; nothing is written when a check fails."""
        ...


@dataclasses.dataclass(frozen=True)
class PreparedFork:
    """A fork checked and computed, handed to a backend.

    Attributes:
        session_id: The new session's id.
        sequence: How many events are copied (events 1..sequence of the source).
        event_ids: Their ids, in order.
        incarnation: The source's incarnation as read (the backend checks it is unchanged).
        session_state: The new session's state, values encoded with :mod:`adk_runtime.codec`.
        creation_state: The new session's creation state (the source's), values encoded;
            None: unknown, as the source's.
    """

    session_id: str
    sequence: int
    event_ids: list[str]
    incarnation: str | None
    session_state: dict[str, Any]
    creation_state: dict[str, Any] | None = None


def session_state_at(
    state: dict[str, Any],
    events: list[Event],
    sequence: int,
    creation: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The session-scoped state right after event ``sequence`` (see the module docstring).

    Args:
        state: The session's merged state now (``app:``/``user:`` keys are ignored); used
            only when ``creation`` is unknown.
        events: Every event of the session, oldest first.
        sequence: The point (0: before the first event).
        creation: The session's creation state (decoded), or None when unknown.
    """
    if creation is not None:
        result = dict(creation)
        for event in events[:sequence]:
            result.update(split_state_delta(event.actions.state_delta)[0])
        return result
    later = {key for event in events[sequence:] for key in event.actions.state_delta}
    result = {
        key: value
        for key, value in state.items()
        if not key.startswith(_SCOPED) and key not in later
    }
    for event in events[:sequence]:
        session_delta, _app, _user, _temp = split_state_delta(event.actions.state_delta)
        result.update(session_delta)
    return result


async def creation_state(service: CreationStates, session: Session) -> dict[str, Any] | None:
    """The creation state of ``session`` (decoded; None: unknown), read from ``service``.

    Read only for a fork, a rewind or an export, never by ``get_session``. None also when
    the stored session is no longer ``session``'s incarnation: the caller's write then fails
    its own incarnation check.
    """
    key = (session.app_name, session.user_id, session.id)
    stored = await service._creation_state(key, session._incarnation)
    return None if stored is None else codec.decode_state(stored)


async def fork(
    service: ForkStore,
    key: tuple[str, str, str],
    new_session_id: str,
    at_event_id: str | None,
    artifacts: ForkArtifacts | None = None,
) -> Session:
    """Fork the session ``key`` (``fork_session``'s implementation)."""
    validate_session_key(*key)
    validate_id(new_session_id, "new_session_id")
    if at_event_id is not None:
        validate_id(at_event_id, "at_event_id")
    app_name, user_id, session_id = key
    source = await service.get_session(app_name=app_name, user_id=user_id, session_id=session_id)
    if source is None:
        raise SessionNotFoundError(f"Session {session_id!r} does not exist.")
    ids = [event.id for event in source.events]
    if at_event_id is None:
        sequence = len(ids)
    elif at_event_id in ids:
        sequence = ids.index(at_event_id) + 1
    else:
        raise EventNotFoundError(
            f"Event {at_event_id!r} is not in session {session_id!r}; nothing was written."
        )
    creation = await creation_state(service, source)
    state = session_state_at(source.state, source.events, sequence, creation)
    prepared = PreparedFork(
        session_id=new_session_id,
        sequence=sequence,
        event_ids=ids[:sequence],
        incarnation=source._incarnation,
        session_state=_encoded(state),
        creation_state=None if creation is None else _encoded(creation),
    )
    await service._fork_session(key, prepared)
    if artifacts is not None:
        try:
            await artifacts.fork_session_artifacts(
                app_name=app_name,
                user_id=user_id,
                session_id=session_id,
                new_session_id=new_session_id,
                events=source.events,
                position=sequence,
            )
        except BaseException:
            await service.delete_session(
                app_name=app_name, user_id=user_id, session_id=new_session_id
            )
            raise
    forked = await service.get_session(
        app_name=app_name, user_id=user_id, session_id=new_session_id
    )
    assert forked is not None
    return forked


def _encoded(state: dict[str, Any]) -> dict[str, Any]:
    return {k: codec.encode_value(v, f"state[{k!r}]") for k, v in state.items()}
