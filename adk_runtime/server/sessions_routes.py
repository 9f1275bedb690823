"""Apps, sessions and memory routes (google-adk ``api_server`` paths and shapes)."""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Body, Query
from fastapi.responses import JSONResponse

from adk_runtime.errors import InputValidationError, SessionNotFoundError
from adk_runtime.events import Event, EventActions
from adk_runtime.events._internal_metadata import mark_restored
from adk_runtime.server._state import AdkState, ServerState, SessionPath
from adk_runtime.server.models import (
    CreateSessionRequest,
    UpdateMemoryRequest,
    UpdateSessionRequest,
    session_json,
)
from adk_runtime.sessions import Session
from adk_runtime.sessions._create_with_events import create_with_events

router = APIRouter()

_SESSION = "/apps/{app_name}/users/{user_id}/sessions/{session_id}"


@router.get("/list-apps")
async def list_apps(state: AdkState) -> list[str]:
    """The apps this server serves (one: the agent given to ``serve``)."""
    return [state.app_name]


async def load_session(state: ServerState, app_name: str, user_id: str, session_id: str) -> Session:
    """Return the session or raise :class:`SessionNotFoundError` (→ 404)."""
    state.check_app(app_name)
    session = await state.sessions.get_session(
        app_name=app_name, user_id=user_id, session_id=session_id
    )
    if session is None:
        raise SessionNotFoundError(
            f"Session {session_id!r} of user {user_id!r} in app {app_name!r} not found."
        )
    return session


@router.get(_SESSION)
async def get_session(key: SessionPath, state: AdkState) -> JSONResponse:
    """The session with its state and events."""
    session = await load_session(state, **key)
    return JSONResponse(session_json(session))


@router.get("/apps/{app_name}/users/{user_id}/sessions")
async def list_sessions(
    app_name: str,
    user_id: str,
    state: AdkState,
    page_size: Annotated[int | None, Query(alias="pageSize", ge=1, le=1000)] = None,
    page_token: Annotated[str | None, Query(alias="pageToken")] = None,
) -> JSONResponse:
    """The user's sessions without events, most recent first.

    Without ``pageSize``: every session, as a list (google-adk's shape). With ``pageSize``:
    ``{"sessions": [...], "nextPageToken": "..."}``; pass the token back as ``pageToken``.
    """
    state.check_app(app_name)
    page = await state.sessions.list_sessions(
        app_name=app_name, user_id=user_id, page_size=page_size, page_token=page_token
    )
    sessions = [session_json(s) for s in page.sessions]
    if page_size is None and page_token is None:
        return JSONResponse(sessions)
    return JSONResponse({"sessions": sessions, "nextPageToken": page.next_page_token})


async def _create(
    state: ServerState,
    app_name: str,
    user_id: str,
    session_id: str | None,
    initial: dict[str, Any] | None,
    events: list[Event] | None = None,
) -> JSONResponse:
    state.check_app(app_name)
    if not events:
        session = await state.sessions.create_session(
            app_name=app_name, user_id=user_id, session_id=session_id, state=initial
        )
        return JSONResponse(session_json(session))
    for event in events:
        mark_restored(event)  # history from outside: its calls are never run as the agent's
    # One atomic write: every event checked first, then the row, its state and its events.
    session = await create_with_events(
        state.sessions,
        app_name=app_name,
        user_id=user_id,
        state=initial,
        session_id=session_id,
        events=events,
    )
    return JSONResponse(session_json(session))


@router.post("/apps/{app_name}/users/{user_id}/sessions")
async def create_session(
    app_name: str,
    user_id: str,
    state: AdkState,
    req: CreateSessionRequest | None = None,
) -> JSONResponse:
    """Create a session (id, initial state and events optional); 409 if the id exists.

    With events, one atomic write: every event is checked first (422, nothing written).
    """
    req = req or CreateSessionRequest()
    return await _create(state, app_name, user_id, req.session_id, req.state, req.events)


@router.post(_SESSION)
async def create_session_with_id(
    key: SessionPath, state: AdkState, initial: Annotated[dict[str, Any] | None, Body()] = None
) -> JSONResponse:
    """Create a session with this id; the body is its initial state. 409 if it exists."""
    return await _create(state, key["app_name"], key["user_id"], key["session_id"], initial)


@router.patch(_SESSION)
async def update_session(
    key: SessionPath, req: UpdateSessionRequest, state: AdkState
) -> JSONResponse:
    """Commit a state change without running the agent (one event by ``user``)."""
    session = await load_session(state, **key)
    event = Event(
        invocation_id=f"p-{uuid.uuid4()}",
        author="user",
        actions=EventActions(state_delta=req.state_delta),
    )
    await state.sessions.append_event(session, event)
    return JSONResponse(session_json(session))


@router.delete(_SESSION)
async def delete_session(key: SessionPath, state: AdkState) -> None:
    """Delete the session, its events and its own artifacts (404 if the session is missing).

    The artifacts (not ``user:`` ones) go after the session delete commits, and also when the
    session is already gone (then 404 still): a crash between leaves orphan artifacts, never a
    session whose files are gone, and a retry cleans them up.
    """
    try:
        await load_session(state, **key)
    except SessionNotFoundError:  # a retry after a crash: finish the artifact delete, then 404
        await state.artifacts.delete_session_artifacts(**key)
        raise
    await state.sessions.delete_session(**key, artifact_service=state.artifacts)


@router.patch("/apps/{app_name}/users/{user_id}/memory")
async def update_memory(
    app_name: str,
    user_id: str,
    req: UpdateMemoryRequest,
    state: AdkState,
) -> None:
    """Add a session's events to the memory service (422 when none is configured)."""
    memory = state.runner.memory_service
    if memory is None:
        raise InputValidationError(
            "No memory service is configured; start the server with --memory-url."
        )
    session = await load_session(state, app_name, user_id, req.session_id)
    await memory.add_session_to_memory(session)
