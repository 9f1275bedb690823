"""What a session service writes, checked and encoded before any backend sees it.

:class:`~adk_runtime.sessions.base.BaseSessionService` runs these before its backend step:
an event's ids are validated, its ``temp:`` keys split off, its JSON built and checked for
readability (:mod:`adk_runtime.events._limits`), and each scope's delta encoded with
:mod:`adk_runtime.codec`; a backend receives a :class:`PreparedAppend` (or
:class:`PreparedCreate`) and answers with an :class:`AppendResult`.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from adk_runtime import codec
from adk_runtime.errors import (
    ClaimLostError,
    EventIdConflictError,
    InputValidationError,
    SerializationError,
    StaleSessionError,
)
from adk_runtime.events import Event, event_to_json
from adk_runtime.events._limits import check_storable
from adk_runtime.platform import uuid as platform_uuid
from adk_runtime.sessions._validation import (
    validate_id,
    validate_optional_text,
    validate_session_key,
)
from adk_runtime.sessions.session import Session
from adk_runtime.sessions.state import split_state_delta

if TYPE_CHECKING:
    from adk_runtime.sessions.base import GetSessionConfig

__all__ = [
    "MAX_REVISION",
    "AppendResult",
    "PreparedAppend",
    "PreparedCreate",
    "PreparedEvent",
    "ReadPlan",
    "SessionTail",
    "apply_result",
    "check_event",
    "check_retry",
    "encode_scope",
    "prepare_append",
    "prepare_create",
    "prepare_event",
]


MAX_REVISION = 2**31 - 1
"""Largest revision every store holds: PostgreSQL's ``integer`` column.
Storage is never beyond it, so a caller's revision above it (or below 0) is stale."""

MAX_CLAIM_TOKEN = 2**63 - 1
"""Largest claim (fencing) token a store holds: tokens are 63 random bits (``claims``)."""


@dataclasses.dataclass(frozen=True)
class PreparedAppend:
    """An event checked and serialized for one commit, handed to a backend.

    Attributes:
        event: The event, its ``temp:`` keys already removed from ``actions.state_delta``.
        event_json: The event as stored (see :func:`adk_runtime.events.event_to_json`).
        expected_revision: The caller's revision; storage must still be at it.
        incarnation: The caller's session incarnation; storage must still hold that one
            (None: not checked, e.g. a Session built by hand).
        session_delta: Session-scoped keys, values encoded with :mod:`adk_runtime.codec`.
        app_delta: ``app:`` keys without the prefix, values encoded.
        user_delta: ``user:`` keys without the prefix, values encoded.
        fence: The caller's claim token: the session's latest claim must be this one. None:
            written without a claim; then no other claim's lease may be running.
        release: Also release claim ``fence`` and clear the open invocation, in the same
            atomic step (a turn's last event; see ``Session._release_on_commit``). A store
            that does reports ``AppendResult.released``.
    """

    event: Event
    event_json: str
    expected_revision: int
    incarnation: str | None
    session_delta: dict[str, Any]
    app_delta: dict[str, Any]
    user_delta: dict[str, Any]
    fence: int | None = None
    release: bool = False


@dataclasses.dataclass(frozen=True)
class ReadPlan:
    """The read a combined claim-and-read makes (``BaseSessionService._claim_and_read``).

    Attributes:
        config: ``get_session``'s config: the events it selects (None: all of them).
        since: With the session cache: only the events after this revision (then ``config``
            is None)...
        identity: ...of this incarnation; a session that is another one (deleted and
            created again) is read whole. None: no cache entry, read whole.
    """

    config: GetSessionConfig | None = None
    since: int | None = None
    identity: str | None = None


@dataclasses.dataclass(frozen=True)
class SessionTail:
    """A session read for the cache: its events after a revision, and who it is.

    Attributes:
        session: The session (merged state, revision) with ``events`` holding only the events
            after the revision asked for (all of them when none was).
        identity: The session's incarnation: it changes when the session is deleted and
            created again under the same id.
        size: Bytes of stored JSON of those events.
    """

    session: Session
    identity: str
    size: int


@dataclasses.dataclass(frozen=True)
class AppendResult:
    """What a backend's commit did.

    Attributes:
        event: The stored event (the caller's object on a fresh commit).
        sequence: The event's per-session sequence number (= the revision it produced).
        update_time: The session's last update time after the commit.
        already_stored: True when the event id was already stored and nothing changed.
        released: The commit also released the claim (``PreparedAppend.release``).
    """

    event: Event
    sequence: int
    update_time: float
    already_stored: bool = False
    released: bool = False


def check_event(event: Event) -> None:
    """Run every check :meth:`BaseSessionService.append_event` makes, writing nothing.

    For callers that write several events and want to refuse bad input before the first
    write (e.g. creating a session with events).

    Raises:
        SerializationError: A value cannot be stored (the error names its path).
        InputValidationError: An id is malformed.
    """
    probe = Session(id="probe", app_name="probe", user_id="probe")
    prepare_append(probe, event.model_copy(deep=True))


def prepare_append(session: Session, event: Event) -> tuple[PreparedAppend, dict[str, Any]]:
    _check_position(session)
    validate_id(event.id, "event.id")
    validate_optional_text(event.invocation_id, "event.invocation_id")
    _check_timestamp(event)
    original = event.actions.state_delta
    _check_keys(original, "state_delta")
    session_delta, app_delta, user_delta, temp = split_state_delta(original)
    if temp:
        event.actions.state_delta = {k: v for k, v in original.items() if k not in temp}
    try:
        event_json = event_to_json(event)
        check_storable(event, event_json)
        encoded = [
            encode_scope(session_delta, ""),
            encode_scope(app_delta, "app:"),
            encode_scope(user_delta, "user:"),
        ]
    except BaseException:
        event.actions.state_delta = original
        raise
    prepared = PreparedAppend(
        event=event,
        event_json=event_json,
        expected_revision=session.revision,
        incarnation=session._incarnation,
        fence=session._fence,
        release=session._release_on_commit and session._fence is not None,
        session_delta=encoded[0],
        app_delta=encoded[1],
        user_delta=encoded[2],
    )
    return prepared, temp


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_position(session: Session) -> None:
    """Refuse a session object whose revision or claim token no store can be at.

    Checked before any backend sees them, so a driver never meets an integer it cannot bind
    (and one such append never joins, or fails, a batch of others).
    """
    revision: Any = session.revision
    if not _is_int(revision):
        raise InputValidationError(
            f"session.revision must be an integer, not {type(revision).__name__}."
        )
    if not 0 <= revision <= MAX_REVISION:
        raise StaleSessionError()
    fence: Any = session._fence
    if fence is not None and not (_is_int(fence) and 0 <= fence <= MAX_CLAIM_TOKEN):
        raise ClaimLostError(session.id)


def _check_timestamp(event: Event) -> None:
    """Make ``event.timestamp`` a float, as validation would have (it may have been assigned).

    Raises:
        SerializationError: It is not a number, or an integer too large for a float.
    """
    timestamp: Any = event.timestamp
    if type(timestamp) is float:
        return
    if not isinstance(timestamp, (int, float)) or isinstance(timestamp, bool):
        raise SerializationError(
            "event.timestamp", f"it must be a number of seconds, not {type(timestamp).__name__}"
        )
    try:
        event.timestamp = float(timestamp)
    except OverflowError:
        raise SerializationError("event.timestamp", "it is out of range") from None


_RETRY_MAY_CHANGE = ("id", "timestamp", "invocationId")
"""Stored-event fields a retry may carry anew: a message sent again under its idempotency key
is a new ``Event`` object of a new invocation, made at a new time."""


def check_retry(session_id: str, prepared: PreparedAppend, stored: Event) -> None:
    """Refuse an append whose event id is stored for a different event (nothing was written).

    Runs only when the backend answered "already stored", so a first commit never pays for it.

    Raises:
        EventIdConflictError: Author, content, actions or another field differ.
    """
    if _substance(prepared.event_json) != _substance(event_to_json(stored)):
        raise EventIdConflictError(prepared.event.id, session_id)


def _substance(event_json: str) -> dict[str, Any]:
    fields: dict[str, Any] = json.loads(event_json)
    for name in _RETRY_MAY_CHANGE:
        fields.pop(name, None)
    return fields


def _check_keys(state: Any, name: str) -> None:
    """Refuse a state mapping whose keys are not storable strings (before it is split).

    Raises:
        SerializationError: A key is not a string, or holds NUL or a lone surrogate.
    """
    if not isinstance(state, Mapping):
        raise SerializationError(name, f"it must be a mapping, not {type(state).__name__}")
    for key in state:
        if type(key) is str and key.isprintable():  # the usual key: no NUL, no lone surrogate
            continue
        path = f"{name}[{key!r:.80}]"
        if not isinstance(key, str):
            raise SerializationError(path, f"keys must be strings, not {type(key).__name__}")
        codec.encode_value(key, path)


def encode_scope(delta: dict[str, Any], prefix: str, name: str = "state_delta") -> dict[str, Any]:
    return {
        key: codec.encode_value(value, f"{name}[{prefix + key!r}]") for key, value in delta.items()
    }


@dataclasses.dataclass(frozen=True)
class PreparedEvent:
    """An event a new session is created with, checked and serialized (see ``PreparedCreate``).

    Attributes:
        id: The event id (validated).
        invocation_id: Its invocation id (``""`` when it has none).
        timestamp: Its timestamp.
        event_json: The event as stored (see :func:`adk_runtime.events.event_to_json`).
    """

    id: str
    invocation_id: str
    timestamp: float
    event_json: str

    @classmethod
    def of(cls, event: Event) -> PreparedEvent:
        """Check ``event`` as :func:`check_event` does and serialize it (``temp:`` dropped).

        Raises:
            SerializationError: A value cannot be stored (the error names its path).
            InputValidationError: An id is malformed.
        """
        return prepare_event(event)[0]


def prepare_event(event: Event) -> tuple[PreparedEvent, Event]:
    """:meth:`PreparedEvent.of`, and the event as it will be stored (a copy, ``temp:`` dropped).

    Raises:
        SerializationError: A value cannot be stored (the error names its path).
        InputValidationError: An id is malformed.
    """
    probe = Session(id="probe", app_name="probe", user_id="probe")
    prepared, _temp = prepare_append(probe, event.model_copy(deep=True))
    stored = prepared.event
    checked = PreparedEvent(
        stored.id, stored.invocation_id or "", stored.timestamp, prepared.event_json
    )
    return checked, stored


@dataclasses.dataclass(frozen=True)
class PreparedCreate:
    """A ``create_session`` call checked and encoded, handed to a backend.

    Attributes:
        session_id: The given id, or a fresh uuid4.
        session_state: Session-scoped keys, values encoded with :mod:`adk_runtime.codec`.
        app_state: ``app:`` keys without the prefix, values encoded.
        user_state: ``user:`` keys without the prefix, values encoded.
        events: Events the new session holds from the start, in order (sequences 1..n, so
            its revision is n), written in the same atomic step as the row (an import, see
            :mod:`adk_runtime.sessions.transfer`; a session created with events over HTTP,
            see :mod:`adk_runtime.sessions._create_with_events`). Their state deltas are
            *not* applied: the three states above are already the result. Their ids are
            distinct.
        creation_state: The session-scoped state the session counts as created with, values
            encoded (kept with the session for fork and rewind, see
            :func:`adk_runtime.sessions.fork.session_state_at`): ``session_state`` for a plain
            create; an import's ``creation_state`` field. None: unknown (an import of an
            older export), stored as such.
    """

    session_id: str
    session_state: dict[str, Any]
    app_state: dict[str, Any]
    user_state: dict[str, Any]
    events: tuple[PreparedEvent, ...] = ()
    creation_state: dict[str, Any] | None = None


def prepare_create(
    app_name: str, user_id: str, state: dict[str, Any] | None, session_id: str | None
) -> PreparedCreate:
    """Validate the key and encode the initial state of a new session (``temp:`` dropped).

    Raises:
        InputValidationError: An id is malformed.
        SerializationError: A value cannot be stored; the error names it, e.g. ``state['k']``.
    """
    session_id = platform_uuid.new_uuid() if session_id is None else session_id
    validate_session_key(app_name, user_id, session_id)
    _check_keys(state or {}, "state")
    session_state, app_state, user_state, _temp = split_state_delta(state or {})
    encoded = encode_scope(session_state, "", "state")
    return PreparedCreate(
        session_id=session_id,
        session_state=encoded,
        app_state=encode_scope(app_state, "app:", "state"),
        user_state=encode_scope(user_state, "user:", "state"),
        creation_state=encoded,
    )


def apply_result(
    session: Session, prepared: PreparedAppend, temp: dict[str, Any], result: AppendResult
) -> None:
    if result.released:
        session._release_on_commit = False
    if result.already_stored:
        if result.sequence != session.revision + 1:
            return
        event = result.event
        delta = event.actions.state_delta
    else:
        event = prepared.event
        delta = event.actions.state_delta
    session.state.update(temp)
    session.state.update(delta)
    session.events.append(event)
    session.revision = result.sequence
    session.last_update_time = result.update_time
