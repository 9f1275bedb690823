"""Error messages for HTTP clients: the library's advice, retold in terms of routes.

The Runner's :class:`~adk_runtime.errors.SessionNotFoundError` tells a Python caller to
create the session or build the Runner with ``auto_create_session=True``; an HTTP client can do
neither, so ``/run`` and ``/run_sse`` answer with the route that creates the session instead.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import Request

from adk_runtime.errors import SessionNotFoundError

__all__ = ["http_detail"]

_RUN_PATHS = frozenset({"/run", "/run_sse"})


async def http_detail(request: Request, exc: Exception, app_name: str) -> str:
    """The ``detail`` of an error response to ``request`` (``str(exc)`` unless retold)."""
    if not isinstance(exc, SessionNotFoundError) or request.url.path not in _RUN_PATHS:
        return str(exc)
    body = await _json_body(request)
    user = _field(body, "userId", "user_id") or "{userId}"
    session = _field(body, "sessionId", "session_id") or "{sessionId}"
    app = _field(body, "appName", "app_name") or app_name
    return (
        f"Session {session!r} of user {user!r} in app {app!r} does not exist. Create it first "
        f"with POST /apps/{app}/users/{user}/sessions/{session} (body: its initial state, "
        f"e.g. {{}}), or POST /apps/{app}/users/{user}/sessions with "
        f"{json.dumps({'sessionId': session})}; then run again."
    )


async def _json_body(request: Request) -> dict[str, Any]:
    """The request's JSON body as the route read it (FastAPI keeps it), or {}."""
    try:
        body = json.loads(await request.body())
    except (ValueError, RuntimeError):
        return {}
    return body if isinstance(body, dict) else {}


def _field(body: dict[str, Any], *names: str) -> str | None:
    for name in names:
        value = body.get(name)
        if isinstance(value, str) and value:
            return value
    return None
