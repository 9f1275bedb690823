"""Rewinding a session to before an invocation: one event that reverts state and artifacts.

:func:`rewind_event` builds the event ``Runner.rewind_async`` commits (google-adk's shape: a
``user`` event whose actions carry ``rewind_before_invocation_id``, a reverting
``state_delta`` and an ``artifact_delta``):

- **state** (session scope only; ``app:`` and ``user:`` state belong to the app and the user
  and are not rewound, as in google-adk): every key whose value differs from its value before
  the invocation gets that value back; a key that did not exist then is set to ``None`` (a
  delta cannot remove a key). The value "before" is computed as for a fork
  (:func:`adk_runtime.sessions.fork.session_state_at`);
- **artifacts** (session-scoped; ``user:`` files are not rewound): a file changed since gets a
  new version holding its content from before (saved before the commit, so the event can
  name it); a file created since is deleted once the event is committed
  (:func:`delete_created`), and listed in the event's ``custom_metadata``.

Later turns build the model's contents from :func:`adk_runtime.events.rewind.live_events`, so
the rewound events (and the rewind event itself) no longer reach the model; the log keeps them.
"""

from __future__ import annotations

from typing import Any

from adk_runtime.artifacts.base import BaseArtifactService
from adk_runtime.errors import InvocationNotFoundError
from adk_runtime.events import Event, EventActions
from adk_runtime.events.rewind import live_events
from adk_runtime.platform import uuid as platform_uuid
from adk_runtime.sessions.fork import session_state_at
from adk_runtime.sessions.session import Session
from adk_runtime.sessions.state import State

__all__ = ["CREATED_KEY", "delete_created", "rewind_event"]

CREATED_KEY = "adk_rewind_deleted_artifacts"
"""``custom_metadata`` key of a rewind event: the artifacts it deletes (created after)."""

_SCOPED = (State.APP_PREFIX, State.USER_PREFIX, State.TEMP_PREFIX)


async def rewind_event(
    session: Session,
    invocation_id: str,
    artifacts: BaseArtifactService | None,
) -> Event:
    """The event that rewinds ``session`` to before ``invocation_id`` (module docstring).

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
    before = session_state_at(session.state, live, start)
    delta: dict[str, Any] = {k: v for k, v in before.items() if session.state.get(k, _GONE) != v}
    for key in session.state:
        if not key.startswith(_SCOPED) and key not in before:
            delta[key] = None
    actions = EventActions(rewind_before_invocation_id=invocation_id, state_delta=delta)
    event = Event(invocation_id="e-" + platform_uuid.new_uuid(), author="user", actions=actions)
    if artifacts is not None:
        created = await _restore_artifacts(session, live, start, artifacts, actions)
        if created:
            event.custom_metadata = {CREATED_KEY: created}
    return event


_GONE = object()


async def _restore_artifacts(
    session: Session,
    live: list[Event],
    start: int,
    artifacts: BaseArtifactService,
    actions: EventActions,
) -> list[str]:
    """Save the earlier content of changed files as new versions; return the created ones."""
    then: dict[str, int] = {}
    for event in live[:start]:
        then.update(event.actions.artifact_delta)
    now: dict[str, int] = {}
    for event in live:
        now.update(event.actions.artifact_delta)
    created: list[str] = []
    key = {"app_name": session.app_name, "user_id": session.user_id, "session_id": session.id}
    for filename, version in now.items():
        if filename.startswith(State.USER_PREFIX) or then.get(filename) == version:
            continue
        earlier = then.get(filename)
        part = (
            None
            if earlier is None
            else await artifacts.load_artifact(filename=filename, version=earlier, **key)
        )
        if part is None:
            created.append(filename)
            continue
        actions.artifact_delta[filename] = await artifacts.save_artifact(
            app_name=session.app_name,
            user_id=session.user_id,
            session_id=session.id,
            filename=filename,
            artifact=part,
        )
    return sorted(created)


async def delete_created(
    session: Session, event: Event, artifacts: BaseArtifactService | None
) -> None:
    """Delete the artifacts a committed rewind event lists as created after its point."""
    if artifacts is None or not event.custom_metadata:
        return
    for filename in event.custom_metadata.get(CREATED_KEY, []):
        await artifacts.delete_artifact(
            app_name=session.app_name,
            user_id=session.user_id,
            session_id=session.id,
            filename=filename,
        )
