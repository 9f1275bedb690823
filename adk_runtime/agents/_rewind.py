"""Rewinding a session to before an invocation: one event that reverts state and artifacts.

:func:`rewind_event` builds the event ``Runner.rewind_async`` commits (google-adk's shape: a
``user`` event whose actions carry ``rewind_before_invocation_id``, a reverting
``state_delta`` and an ``artifact_delta``):

- **state** (session scope only; ``app:`` and ``user:`` state belong to the app and the user
  and are not rewound, as in google-adk): every key whose value differs from its value before
  the invocation gets that value back; a key that did not exist then is set to ``None`` (a
  delta cannot remove a key). The value "before" is computed as for a fork
  (:func:`adk_runtime.sessions.fork.session_state_at`): the session's creation state folded
  with every event before the invocation's first live event (earlier rewinds included, whose
  deltas already reverted what they rewound), or the older rule when the creation state is
  unknown;
- **artifacts** (session-scoped; ``user:`` files are not rewound): each artifact reads as it
  did at the rewind point, found from the artifact store itself (so an upload that no event
  names counts too; :class:`adk_runtime.artifacts.history.HistoryPoint`): one whose current
  version is not the one current then gets a new version holding that content; one that did
  not exist then gets google-adk's tombstone as a new version (it loads as absent). Nothing
  is deleted: every earlier version stays in the history. The new versions are saved before
  the commit, so the event's ``artifact_delta`` names them.

Later turns build the model's contents from :func:`adk_runtime.events.rewind.live_events`, so
the rewound events (and the rewind event itself) no longer reach the model; the log keeps them.
"""

from __future__ import annotations

from typing import Any

from adk_runtime.artifacts.base import BaseArtifactService
from adk_runtime.artifacts.history import HistoryPoint, rewind_tombstone
from adk_runtime.errors import InvocationNotFoundError
from adk_runtime.events import Event, EventActions
from adk_runtime.events.rewind import live_events
from adk_runtime.platform import uuid as platform_uuid
from adk_runtime.sessions.base import BaseSessionService
from adk_runtime.sessions.fork import creation_state, session_state_at
from adk_runtime.sessions.session import Session
from adk_runtime.sessions.state import State

__all__ = ["rewind_event"]

_SCOPED = (State.APP_PREFIX, State.USER_PREFIX, State.TEMP_PREFIX)


async def rewind_event(
    session: Session,
    invocation_id: str,
    artifacts: BaseArtifactService | None,
    sessions: BaseSessionService,
) -> Event:
    """The event that rewinds ``session`` to before ``invocation_id`` (module docstring).

    ``sessions`` is the store ``session`` was read from (its creation state is read there).

    Raises:
        InvocationNotFoundError: No live event of the session belongs to the invocation.
    """
    live = live_events(session.events)
    start = next((i for i, e in enumerate(live) if e.invocation_id == invocation_id), None)
    if start is None:
        raise InvocationNotFoundError(
            f"Invocation ID not found: {invocation_id} (no live event of session "
            f"{session.id!r} belongs to it, or it was rewound already); nothing was written."
        )
    position = [e.id for e in session.events].index(live[start].id)
    creation = await creation_state(sessions, session)
    if creation is None:  # unknown: the older rule, over the live events
        before = session_state_at(session.state, live, start)
    else:
        before = session_state_at(session.state, session.events, position, creation)
    delta: dict[str, Any] = {k: v for k, v in before.items() if session.state.get(k, _GONE) != v}
    for key in session.state:
        if not key.startswith(_SCOPED) and key not in before:
            delta[key] = None
    actions = EventActions(rewind_before_invocation_id=invocation_id, state_delta=delta)
    event = Event(invocation_id="e-" + platform_uuid.new_uuid(), author="user", actions=actions)
    if artifacts is not None:
        await _restore_artifacts(session, position, artifacts, actions)
    return event


_GONE = object()


async def _restore_artifacts(
    session: Session, position: int, artifacts: BaseArtifactService, actions: EventActions
) -> None:
    """Save, as new versions, each artifact as it was before ``session.events[position]``."""
    point = HistoryPoint.of(session.events, position)
    app_name, user_id, session_id = session.app_name, session.user_id, session.id
    names = await artifacts.list_artifact_keys(
        app_name=app_name, user_id=user_id, session_id=session_id
    )
    for filename in sorted({n for n in names if not n.startswith(State.USER_PREFIX)}):
        versions = await artifacts.list_artifact_versions(
            app_name=app_name, user_id=user_id, session_id=session_id, filename=filename
        )
        then = point.current(filename, versions)
        if not versions or then == versions[-1].version:
            continue  # unchanged since the point
        part = None
        if then is not None:
            part = await artifacts.load_artifact(
                app_name=app_name,
                user_id=user_id,
                session_id=session_id,
                filename=filename,
                version=then,
            )
        if part is None:  # it did not exist then (or it was a tombstone)
            now = await artifacts.load_artifact(
                app_name=app_name, user_id=user_id, session_id=session_id, filename=filename
            )
            if now is None:
                continue  # it does not exist now either
            part = rewind_tombstone()
        actions.artifact_delta[filename] = await artifacts.save_artifact(
            app_name=app_name,
            user_id=user_id,
            session_id=session_id,
            filename=filename,
            artifact=part,
        )
