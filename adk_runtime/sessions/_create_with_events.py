"""Creating a session that starts with events (history from outside), in one atomic step.

google-adk's HTTP API creates a session with ``events`` (``POST …/sessions``); google-adk has
no Python API for it, so neither do we: the server calls :func:`create_with_events`.

Every event is checked as ``append_event`` checks it (ids, storable values, the limits of
:mod:`adk_runtime.events._limits`), no id may appear twice, and no event may carry a state
delta (``temp:`` keys are dropped first) or name artifact versions: a new session's events are
history, its state is the ``state`` given, and its history names no artifact the session cannot
load (google-adk 2.13's server refuses events with any actions). Only then is the session
written, in one backend step (``PreparedCreate.events``): its row, its state, the ``app:`` /
``user:`` keys of ``state`` and its events commit together or not at all.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from adk_runtime.errors import InputValidationError, SerializationError
from adk_runtime.events import Event
from adk_runtime.sessions._prepare import PreparedEvent, prepare_create, prepare_event
from adk_runtime.sessions.base import BaseSessionService
from adk_runtime.sessions.session import Session

__all__ = ["create_with_events"]


async def create_with_events(
    service: BaseSessionService,
    *,
    app_name: str,
    user_id: str,
    state: dict[str, Any] | None,
    session_id: str | None,
    events: Sequence[Event],
) -> Session:
    """Create the session holding ``events`` (revision = their count); see the module docstring.

    The caller's events are not changed; the returned session holds the stored copies.

    Raises:
        AlreadyExistsError: The session exists; nothing changed.
        InputValidationError: An id or an event is refused (the message names ``events[i]``);
            nothing was written.
        SerializationError: A value of ``state`` cannot be stored; nothing was written.
    """
    prepared = prepare_create(app_name, user_id, state, session_id)
    checked = [_check(index, event) for index, event in enumerate(events)]
    _refuse_repeated_ids([item for item, _ in checked])
    prepared = dataclasses.replace(prepared, events=tuple(item for item, _ in checked))
    with service._store_span("create"):
        session = await service._create_session(app_name, user_id, prepared)
    session.events = [stored for _, stored in checked]
    return session


def _check(index: int, event: Event) -> tuple[PreparedEvent, Event]:
    where = f"events[{index}]"
    try:
        checked, stored = prepare_event(event)
    except SerializationError as exc:
        raise InputValidationError(
            f"{where} cannot be stored ({exc.path}: {exc.reason}). Nothing was created."
        ) from None
    except InputValidationError as exc:
        raise InputValidationError(f"{where}: {exc} Nothing was created.") from None
    if stored.actions.state_delta:
        raise InputValidationError(
            f"{where} carries a state delta; a new session's events are history and change "
            "no state: give the session's state as its initial state instead. Nothing was "
            "created."
        )
    if stored.actions.artifact_delta:
        raise InputValidationError(
            f"{where} names artifact versions (artifact_delta) the new session does not have; "
            "a session's history may name only artifacts it can load. Nothing was created."
        )
    return checked, stored


def _refuse_repeated_ids(events: list[PreparedEvent]) -> None:
    first: dict[str, int] = {}
    for index, event in enumerate(events):
        earlier = first.setdefault(event.id, index)
        if earlier != index:
            raise InputValidationError(
                f"events[{index}] has the id of events[{earlier}]; each event of a session has "
                "its own id. Nothing was created."
            )
