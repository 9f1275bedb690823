"""The FastAPI application: one agent served as one app, with ADK's ``api_server`` routes.

Errors map to status codes in one place: a missing session → 404, a duplicate → 409, a stale
session → 409, a busy one (another turn holds it, on any replica) → 409 with ``Retry-After``,
bad input → 422 (with a message), the store unreachable → 503. User input never causes a 500.
With an auth token, every route but ``/health`` (the OpenAPI docs too) needs
``Authorization: Bearer <token>`` (401 otherwise), checked by :mod:`._gate` before the body
is read; bodies over ``max_body_bytes`` get 413.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse
from starlette.middleware.trustedhost import TrustedHostMiddleware

from adk_runtime import telemetry
from adk_runtime.agents import BaseAgent
from adk_runtime.apps import App
from adk_runtime.artifacts.base import BaseArtifactService
from adk_runtime.artifacts.memory import InMemoryArtifactService
from adk_runtime.errors import AdkRuntimeError, SessionBusyError
from adk_runtime.memory.base import BaseMemoryService
from adk_runtime.runners import Runner
from adk_runtime.server import (
    artifacts_routes,
    durable_routes,
    run_routes,
    sessions_routes,
    trace_routes,
)
from adk_runtime.server import dev_ui as dev_ui_routes
from adk_runtime.server._advice import http_detail
from adk_runtime.server._gate import DEFAULT_MAX_BODY_BYTES, Gate
from adk_runtime.server._state import AdkState, ServerState, server_state, status_for
from adk_runtime.server.dev_ui import OPEN_PREFIX, add_dev_ui
from adk_runtime.sessions import BaseSessionService
from adk_runtime.sessions.claims import DEFAULT_LEASE_SECONDS, DEFAULT_WAIT_SECONDS
from adk_runtime.sessions.invocations import OpenInvocation
from adk_runtime.version import __version__

if TYPE_CHECKING:
    from adk_runtime.auth.credential_service.base_credential_service import (
        BaseCredentialService,
    )

__all__ = ["AdkState", "ServerState", "create_app", "server_state"]

logger = logging.getLogger("adk_runtime.server")

# How long shutdown waits for invocations still running before cancelling them.
SHUTDOWN_GRACE_SECONDS = 10.0


async def _adk_error(request: Request, exc: Exception) -> JSONResponse:
    status = status_for(exc)
    if status >= 500:
        logger.error("%s on %s %s: %s", type(exc).__name__, request.method, request.url.path, exc)
    headers = None
    if isinstance(exc, SessionBusyError):
        headers = {"Retry-After": str(max(1, math.ceil(exc.retry_after)))}
    detail = await http_detail(request, exc, server_state(request).app_name)
    return JSONResponse(status_code=status, content={"detail": detail}, headers=headers)


def create_app(
    *,
    agent: BaseAgent | App,
    session_service: BaseSessionService,
    artifact_service: BaseArtifactService | None = None,
    memory_service: BaseMemoryService | None = None,
    credential_service: BaseCredentialService | None = None,
    app_name: str | None = None,
    auth_token: str | None = None,
    owns_services: bool = False,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    session_wait_seconds: float = DEFAULT_WAIT_SECONDS,
    session_lease_seconds: float = DEFAULT_LEASE_SECONDS,
    metrics: bool = False,
    record_traces: bool = False,
    dev_ui: Path | None = None,
    allow_origins: Sequence[str] = (),
    allowed_hosts: Sequence[str] = (),
    resume_interrupted: bool = False,
    abort_on_disconnect: bool = False,
) -> FastAPI:
    """Build the HTTP API for one agent.

    Args:
        agent: The root agent, or an App (its root agent and plugins).
        session_service: Where sessions live.
        artifact_service: Where artifacts live (default: in memory).
        memory_service: The memory service, if any (``PATCH …/memory`` needs it).
        credential_service: Where the tools' sign-ins are kept (see "Tool authentication"
            in docs/how-to/agents/tools.md); without one, a user signs in again on every turn
            that needs it.
        app_name: The app's name in URLs (default: the agent's name).
        auth_token: If set, every route but ``/health`` (the OpenAPI docs included) needs
            this bearer token; it is checked before a request body is read.
        owns_services: Close the services when the app shuts down.
        max_body_bytes: The largest request body read (413 beyond it).
        session_wait_seconds: How long a message waits for its session while another turn
            runs on it (on any replica) before it is refused with 409 and ``Retry-After``.
        session_lease_seconds: The lease of a turn's claim on its session: how long a
            crashed replica keeps the sessions it was serving busy.
        metrics: Serve ``/metrics`` (Prometheus text); sets the process's OpenTelemetry
            meter provider (the ``metrics`` extra).
        record_traces: Keep this process's spans in memory for the dev UI's trace routes
            (``/dev/apps/{app}/debug/trace/...``); needs the OpenTelemetry SDK.
        dev_ui: Serve google-adk's web UI from this bundle directory under ``/dev-ui/``
            (see :func:`adk_runtime.server.dev_ui.find_web_bundle`).
        allow_origins: Origins allowed to call the API from a browser (CORS; none by
            default). ``*`` allows any.
        allowed_hosts: The host names a request's ``Host`` header may name (``*.example.com``
            for subdomains); any other gets 400 before anything else runs. This stops a web
            page from reaching a server on this machine by DNS rebinding (its requests name
            the page's own host). Empty (the default): any host.
        resume_interrupted: At start-up, resume every interrupted invocation of the app in
            the background (each outcome logged on ``adk_runtime.server``); those a lease
            still holds then (a process killed mid-turn and restarted within its lease) are
            resumed once that lease has run out.
        abort_on_disconnect: Stop an invocation when the client that started it with
            ``/run`` or ``/run_sse`` disconnects, as google-adk's server does (what was
            committed stays and the turn is closed as ``INVOCATION_ABORTED``). Off: the
            invocation runs to completion and the client reads the answer later.
    """
    root: dict[str, Any] = (
        {"app": agent, "app_name": app_name}
        if isinstance(agent, App)
        else {"agent": agent, "app_name": app_name or agent.name}
    )
    runner = Runner(
        **root,
        session_service=session_service,
        artifact_service=artifact_service or InMemoryArtifactService(),
        memory_service=memory_service,
        credential_service=credential_service,
        session_wait_seconds=session_wait_seconds,
        session_lease_seconds=session_lease_seconds,
    )
    state = ServerState(
        runner, runner.app_name, auth_token or None, owns_services, abort_on_disconnect
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if resume_interrupted:
            state.spawn(_resume_interrupted(state))
        yield
        await _shutdown(state)

    app = FastAPI(
        title="adk-runtime",
        version=__version__,
        lifespan=lifespan,
    )
    app.state.adk = state
    app.add_exception_handler(AdkRuntimeError, _adk_error)
    app.include_router(sessions_routes.router)
    app.include_router(artifacts_routes.router)
    app.include_router(run_routes.router)
    app.include_router(durable_routes.router)
    _add_telemetry(app, metrics=metrics, record_traces=record_traces)
    app.include_router(dev_ui_routes.router)  # after the trace routes: its /dev/… 501 is last
    if dev_ui is not None:
        add_dev_ui(app, dev_ui)
    # The gate runs before FastAPI reads a body: token first, then the size limit.
    app.add_middleware(
        Gate,
        token=state.auth_token,
        max_body_bytes=max_body_bytes,
        open_prefixes=(OPEN_PREFIX,) if dev_ui is not None else (),
    )
    if allow_origins:  # outermost: preflights and 401s get their CORS headers too
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(allow_origins),
            allow_credentials="*" not in allow_origins,
            allow_methods=["*"],
            allow_headers=["*"],
        )

    if allowed_hosts:  # outermost of all: nothing else runs for a foreign Host header
        app.add_middleware(
            TrustedHostMiddleware, allowed_hosts=list(allowed_hosts), www_redirect=False
        )

    @app.get("/health")
    async def health() -> dict[str, str]:
        """Liveness probe (no token needed)."""
        return {"status": "ok"}

    return app


def _add_telemetry(app: FastAPI, *, metrics: bool, record_traces: bool) -> None:
    """Wire ``/metrics`` and the trace routes (see :mod:`adk_runtime.server.trace_routes`)."""
    app.state.adk_span_recorder = telemetry.install_span_recorder() if record_traces else None
    app.include_router(trace_routes.router)
    if metrics:
        app.state.adk_metrics = telemetry.install_metrics()
        app.include_router(trace_routes.metrics_router)


_LEASE_MARGIN_SECONDS = 0.5
"""How long after a held invocation's lease runs out the start-up resume looks again."""


async def _resume_interrupted(state: ServerState, *, again: bool = True) -> None:
    """Finish the app's interrupted invocations (``serve --resume-interrupted``).

    Those a lease still holds (a holder that died just before this start, or a turn running
    elsewhere) are looked at once more when that lease has run out: by then they are
    interrupted, or finished by their live holder.
    """
    _log_outcomes(await state.runner.resume_interrupted())
    service, app_name = state.runner.session_service, state.runner.app_name
    found = await service.list_interrupted_invocations(app_name=app_name, include_running=True)
    held = [item for item in found if not item.interrupted]
    if not (held and again):
        return
    wait = max(item.held_for for item in held) + _LEASE_MARGIN_SECONDS
    logger.info(
        "%d invocation(s) held by a lease (a holder that died, or a turn running elsewhere); "
        "looking again in %.1f s.",
        len(held),
        wait,
    )
    state.spawn_later(wait, lambda: _resume_interrupted(state, again=False))


def _log_outcomes(outcomes: list[tuple[OpenInvocation, BaseException | None]]) -> None:
    for item, error in outcomes:
        if error is None:
            logger.info("Resumed invocation %r of session %r.", item.invocation_id, item.session_id)
        else:
            logger.warning(
                "Could not resume invocation %r of session %r: %s",
                item.invocation_id,
                item.session_id,
                type(error).__name__,
            )


async def _shutdown(state: ServerState) -> None:
    """Let running invocations finish (grace period), close toolsets, close owned services."""
    for waiting in set(state.waiting):
        waiting.cancel()
    if state.tasks:
        _, pending = await asyncio.wait(set(state.tasks), timeout=SHUTDOWN_GRACE_SECONDS)
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending)
    await state.runner.close()  # the agents' toolsets (MCP sessions and server processes)
    if state.owns_services:
        runner = state.runner
        await runner.session_service.close()
        if runner.artifact_service is not None:
            await runner.artifact_service.close()
        if runner.memory_service is not None:
            await runner.memory_service.close()
