"""Durable-execution routes: list interrupted invocations, resume one, fork a session.

- ``GET /apps/{app}/interrupted-invocations`` (``userId``, ``sessionId``,
  ``includeRunning`` optional): the invocations that started and did not finish, oldest
  first (see :mod:`adk_runtime.sessions.invocations`).
- ``POST /apps/{app}/users/{user}/sessions/{session}/invocations/{invocation}/resume``:
  continue that invocation from its last committed event, streamed as ``/run_sse`` streams
  (``text/event-stream``; 409 when it is not open: finished, or resumed elsewhere). The
  same as ``POST /run_sse`` with ``invocationId`` and no ``newMessage``.
- ``POST /apps/{app}/users/{user}/sessions/{session}/fork`` (body ``{"newSessionId",
  "atEventId"}``, both optional): a new session with the events up to that one and the
  state as of then, and the session's artifacts as of then (404 missing session or event,
  409 taken id).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, StreamingResponse

from adk_runtime.server import run_routes
from adk_runtime.server._state import AdkState, SessionPath
from adk_runtime.server.models import ForkSessionRequest, RunAgentRequest, session_json

router = APIRouter()

_SESSION = "/apps/{app_name}/users/{user_id}/sessions/{session_id}"


@router.get("/apps/{app_name}/interrupted-invocations")
async def list_interrupted(
    app_name: str,
    state: AdkState,
    user_id: Annotated[str | None, Query(alias="userId")] = None,
    session_id: Annotated[str | None, Query(alias="sessionId")] = None,
    include_running: Annotated[bool, Query(alias="includeRunning")] = False,
) -> JSONResponse:
    """Invocations that started and did not finish (failed, crashed; running if asked)."""
    state.check_app(app_name)
    found = await state.sessions.list_interrupted_invocations(
        app_name=app_name,
        user_id=user_id,
        session_id=session_id,
        include_running=include_running,
    )
    return JSONResponse([item.to_json() for item in found])


@router.post(_SESSION + "/invocations/{invocation_id}/resume")
async def resume_invocation(
    app_name: str,
    user_id: str,
    session_id: str,
    invocation_id: str,
    request: Request,
    state: AdkState,
) -> StreamingResponse:
    """Resume the invocation from its last committed event; its events as SSE."""
    req = RunAgentRequest(
        app_name=app_name, user_id=user_id, session_id=session_id, invocation_id=invocation_id
    )
    return await run_routes.run_agent_sse(req, request, state)


@router.post(_SESSION + "/fork")
async def fork_session(
    key: SessionPath, state: AdkState, req: ForkSessionRequest | None = None
) -> JSONResponse:
    """Fork the session (all its events, or up to ``atEventId``) and its artifacts."""
    state.check_app(key["app_name"])
    req = req or ForkSessionRequest()
    forked = await state.sessions.fork_session(
        **key,
        new_session_id=req.new_session_id,
        at_event_id=req.at_event_id,
        artifact_service=state.artifacts,
    )
    return JSONResponse(session_json(forked))
