"""What the HTTP routes share: the server state, and how errors map to status codes.

A module of its own so the route modules and ``app.py`` (which includes them) import it,
never each other.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Coroutine
from typing import Annotated, Any, TypedDict

from fastapi import Depends, HTTPException, Request

from adk_runtime.artifacts.base import BaseArtifactService
from adk_runtime.errors import (
    AlreadyExistsError,
    BackendUnavailableError,
    EventIdConflictError,
    EventNotFoundError,
    InputValidationError,
    InvocationNotFoundError,
    InvocationNotOpenError,
    PluginError,
    SerializationError,
    SessionNotFoundError,
    StaleSessionError,
)
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService

__all__ = [
    "AdkState",
    "ArtifactKey",
    "ArtifactPath",
    "ServerState",
    "SessionKey",
    "SessionPath",
    "artifact_key",
    "server_state",
    "session_key",
    "status_for",
]


@dataclasses.dataclass
class ServerState:
    """What the routes share: the runner, the app name and the invocations in flight."""

    runner: Runner
    app_name: str
    auth_token: str | None
    owns_services: bool
    abort_on_disconnect: bool = False
    tasks: set[asyncio.Task[Any]] = dataclasses.field(default_factory=set)
    waiting: set[asyncio.Task[Any]] = dataclasses.field(default_factory=set)
    """Tasks of :meth:`spawn_later` still waiting (cancelled at shutdown, never waited for)."""

    @property
    def sessions(self) -> BaseSessionService:
        """The session service."""
        return self.runner.session_service

    @property
    def artifacts(self) -> BaseArtifactService:
        """The artifact service (the runner always has one here)."""
        assert self.runner.artifact_service is not None
        return self.runner.artifact_service

    def check_app(self, app_name: str) -> None:
        """Raise 404 unless ``app_name`` is the app this server serves."""
        if app_name != self.app_name:
            raise HTTPException(
                status_code=404,
                detail=f"App {app_name!r} not found; this server serves {self.app_name!r}.",
            )

    def spawn(self, coro: Any) -> asyncio.Task[Any]:
        """Start a task that outlives the request that started it (kept until it ends)."""
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    def spawn_later(self, delay: float, make: Callable[[], Coroutine[Any, Any, Any]]) -> None:
        """:meth:`spawn` ``make()`` after ``delay`` seconds (a shutdown meanwhile cancels it)."""

        async def later() -> None:
            await asyncio.sleep(delay)
            self.spawn(make())

        task = asyncio.get_running_loop().create_task(later())
        self.waiting.add(task)
        task.add_done_callback(self.waiting.discard)


def server_state(request: Request) -> ServerState:
    """The :class:`ServerState` of the app serving ``request``."""
    state: ServerState = request.app.state.adk
    return state


AdkState = Annotated[ServerState, Depends(server_state)]
"""Route parameter type that receives the :class:`ServerState`."""


class SessionKey(TypedDict):
    """The session a route's path names, as the services' keyword arguments (``**key``)."""

    app_name: str
    user_id: str
    session_id: str


def session_key(app_name: str, user_id: str, session_id: str) -> SessionKey:
    """The ``{app_name}``, ``{user_id}`` and ``{session_id}`` path parameters, together."""
    return SessionKey(app_name=app_name, user_id=user_id, session_id=session_id)


SessionPath = Annotated[SessionKey, Depends(session_key)]
"""Route parameter type that receives the path's :class:`SessionKey`.

The app is not checked here: a route checks it (``state.check_app``) where it did, so a bad
body is still answered 422 before a wrong app 404. The path parameters stay in the OpenAPI
document, in the same order, as long as the route has no path parameter of its own (those
would come first).
"""


class ArtifactKey(SessionKey):
    """An artifact a route's path names, as the artifact service's keyword arguments."""

    filename: str


def artifact_key(app_name: str, user_id: str, session_id: str, artifact_name: str) -> ArtifactKey:
    """The session's path parameters and ``{artifact_name}``, together."""
    return ArtifactKey(
        app_name=app_name, user_id=user_id, session_id=session_id, filename=artifact_name
    )


ArtifactPath = Annotated[ArtifactKey, Depends(artifact_key)]
"""Route parameter type that receives the path's :class:`ArtifactKey` (as :data:`SessionPath`)."""


_STATUS: list[tuple[type[BaseException], int]] = [
    (SessionNotFoundError, 404),
    (EventNotFoundError, 404),
    (InvocationNotFoundError, 404),
    (InvocationNotOpenError, 409),
    (AlreadyExistsError, 409),
    (EventIdConflictError, 409),
    (StaleSessionError, 409),
    (InputValidationError, 422),
    (SerializationError, 422),
    (BackendUnavailableError, 503),
]


def status_for(exc: BaseException) -> int:
    """The HTTP status an adk_runtime error maps to (500 for anything unexpected).

    A plugin's error takes its cause's status: a plugin refusing bad input is a 422.
    """
    if isinstance(exc, PluginError) and exc.__cause__ is not None:
        return status_for(exc.__cause__)
    for kind, status in _STATUS:
        if isinstance(exc, kind):
            return status
    return 500
