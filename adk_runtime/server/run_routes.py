"""``POST /run`` and ``POST /run_sse``: run the agent on a session.

Every invocation runs in a background task that the request only reads from. A client that
disconnects (or times out) mid-run therefore loses nothing: the invocation **runs to
completion** and commits every event, exactly as if the client had stayed; the client can read
the result with ``GET`` on the session. (A server made with ``abort_on_disconnect``, as
google-adk's server behaves, stops the invocation instead when its client disconnects: what
was committed stays and the turn is closed as ``INVOCATION_ABORTED``.) While it runs, a
message for the same session (on this or any other replica sharing the store) waits for it
up to the server's session wait, then runs, or gets 409 with ``Retry-After`` having written
nothing. An ``Idempotency-Key`` header makes a retry safe: the message is stored under that id
once, and sending it again answers with the events its turn committed instead of running the
agent again. On server shutdown, running invocations get a grace period and are then
cancelled at an event boundary (what was committed stays, nothing is half-written).

``/run_sse`` answers with an error status (404, 409, 422) when the run fails before its first
event; after that the stream is ``text/event-stream``, one ``data: <event JSON>`` message per
event (partial events as they are produced, the others once committed) and, if the run fails
later, a last ``data: {"error": "<Type>: <message>"}`` message.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Annotated, Any

from fastapi import APIRouter, Header, Request
from fastapi.responses import JSONResponse, StreamingResponse

from adk_runtime.agents import RunConfig, StreamingMode
from adk_runtime.events import Event
from adk_runtime.server._state import AdkState, ServerState, status_for
from adk_runtime.server.models import RunAgentRequest, event_json

router = APIRouter()
logger = logging.getLogger("adk_runtime.server")


class _End:
    """Marks the end of an invocation's events."""


_Item = Event | BaseException | _End


IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        description="A client-chosen id of this message: sent twice, it is stored and "
        "answered once.",
    ),
]


def _start(
    state: ServerState,
    req: RunAgentRequest,
    streaming: bool,
    idempotency_key: str | None,
    request: Request,
) -> asyncio.Queue[_Item]:
    """Start the invocation in the background; its events (then the end) go to the queue."""
    app_name = req.app_name or state.app_name
    state.check_app(app_name)
    run_config = RunConfig(
        streaming_mode=StreamingMode.SSE if streaming else StreamingMode.NONE,
        custom_metadata=req.custom_metadata,
    )
    queue: asyncio.Queue[_Item] = asyncio.Queue()
    abort = asyncio.Event() if state.abort_on_disconnect else None

    async def drive() -> None:
        watcher = None if abort is None else asyncio.ensure_future(_abort_when_gone(request, abort))
        try:
            agen = state.runner.run_async(
                user_id=req.user_id,
                session_id=req.session_id,
                new_message=req.new_message,
                state_delta=req.state_delta,
                run_config=run_config,
                invocation_id=req.invocation_id,
                idempotency_key=idempotency_key,
                abort_signal=abort,
            )
            async with aclosing(agen) as events:
                async for event in events:
                    queue.put_nowait(event)
        except Exception as exc:
            if status_for(exc) >= 500:
                logger.exception("Invocation on session %r failed", req.session_id)
            queue.put_nowait(exc)
        finally:
            if watcher is not None:
                watcher.cancel()
            queue.put_nowait(_End())

    state.spawn(drive())
    return queue


async def _abort_when_gone(request: Request, abort: asyncio.Event) -> None:
    """Set ``abort`` when the client disconnects (the request body is already read)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass
    logger.info("Client gone: stopping its invocation (abort_on_disconnect).")
    abort.set()


async def _next(queue: asyncio.Queue[_Item]) -> Event | None:
    """The next event, None at the end; re-raises the invocation's error."""
    item = await queue.get()
    if isinstance(item, BaseException):
        raise item
    if isinstance(item, _End):
        return None
    return item


@router.post("/run")
async def run_agent(
    req: RunAgentRequest, request: Request, state: AdkState, idempotency_key: IdempotencyKey = None
) -> Any:
    """Run the agent and return every event of the invocation as a list."""
    queue = _start(state, req, False, idempotency_key, request)
    events: list[dict[str, Any]] = []
    try:
        while (event := await _next(queue)) is not None:
            events.append(event_json(event))
    except Exception as exc:
        status = status_for(exc)
        if status < 500:
            raise
        detail = f"The agent failed: {type(exc).__name__}: {exc}. Events committed before it stay."
        return JSONResponse({"detail": detail}, status_code=status)
    return JSONResponse(events)


@router.post("/run_sse")
async def run_agent_sse(
    req: RunAgentRequest, request: Request, state: AdkState, idempotency_key: IdempotencyKey = None
) -> StreamingResponse:
    """Run the agent and stream its events as server-sent events."""
    queue = _start(state, req, req.streaming, idempotency_key, request)
    first = await _next(queue)  # errors before the first event get a proper status code
    return StreamingResponse(_stream(first, queue), media_type="text/event-stream")


async def _stream(first: Event | None, queue: asyncio.Queue[_Item]) -> AsyncIterator[str]:
    event = first
    while event is not None:
        yield f"data: {json.dumps(event_json(event), ensure_ascii=False)}\n\n"
        try:
            event = await _next(queue)
        except Exception as exc:
            error = {"error": f"{type(exc).__name__}: {exc}", "status": status_for(exc)}
            yield f"data: {json.dumps(error, ensure_ascii=False)}\n\n"
            return
