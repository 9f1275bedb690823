"""Runner.close, Runner.run_debug and the thread of Runner.run, kept out of the Runner module."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import logging
import queue
import sys
import threading
from collections.abc import AsyncGenerator, Iterator
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from google.genai import types

from adk_runtime.core.base_agent import BaseAgent
from adk_runtime.core.run_config import RunConfig
from adk_runtime.events import Event
from adk_runtime.platform.thread import create_thread

if TYPE_CHECKING:
    from adk_runtime.runtime.runner import Runner

__all__ = ["ThreadedRun", "close_agent_tools", "format_event", "run_debug"]

logger = logging.getLogger("adk_runtime.runners")

CLOSE_TIMEOUT_SECONDS = 10.0


def _closable_tools(agent: BaseAgent) -> list[Any]:
    """Tools, toolsets and instruction providers of the tree with an async ``close()``.

    Each once (an MCP instruction provider holds a session as a toolset does).
    """
    found: dict[int, Any] = {}
    stack = [agent]
    while stack:
        current = stack.pop()
        tools = getattr(current, "tools", None) or []
        candidates = [*tools, getattr(current, "instruction", None)]
        for candidate in candidates:
            close = getattr(candidate, "close", None)
            if close is not None and inspect.iscoroutinefunction(close):
                found.setdefault(id(candidate), candidate)
        stack.extend(current.sub_agents)
    return list(found.values())


async def close_agent_tools(agent: BaseAgent) -> None:
    """Close every closable tool or toolset of the tree (each within 10 s; failures logged).

    Each ``close()`` runs in a task of its own that the caller's cancellation does not
    reach: a close already started finishes (within its 10 s), so no server process or
    connection is left half closed; the remaining ones are closed too, then the
    cancellation is re-raised.
    """
    cancelled: asyncio.CancelledError | None = None
    for tool in _closable_tools(agent):
        name = type(tool).__name__
        closing = asyncio.ensure_future(asyncio.wait_for(tool.close(), CLOSE_TIMEOUT_SECONDS))
        try:
            try:
                await asyncio.shield(closing)
            except asyncio.CancelledError as exc:
                if closing.cancelled():  # the close cancelled itself: nothing to wait for
                    raise
                cancelled = exc
                await closing  # a second cancellation cancels the close as well
        except asyncio.TimeoutError:
            logger.warning("Closing %s took longer than %s s", name, CLOSE_TIMEOUT_SECONDS)
        except asyncio.CancelledError as exc:
            cancelled = exc
        except Exception as exc:
            logger.error("Closing %s failed: %s", name, type(exc).__name__)
    if cancelled is not None:
        raise cancelled


async def run_debug(
    runner: Runner,
    user_messages: str | list[str],
    *,
    user_id: str,
    session_id: str,
    run_config: RunConfig | None,
    quiet: bool,
    verbose: bool,
) -> list[Event]:
    """Send each message in turn on one session (created if missing); return every event."""
    run_config = run_config or RunConfig()
    service = runner.session_service
    session = await service.get_session(
        app_name=runner.app_name,
        user_id=user_id,
        session_id=session_id,
        config=run_config.get_session_config,
    )
    if session is None:
        session = await service.create_session(
            app_name=runner.app_name, user_id=user_id, session_id=session_id
        )
        if not quiet:
            logger.info("Created new session: %s", session_id)
    elif not quiet:
        logger.info("Continue session: %s", session_id)
    messages = [user_messages] if isinstance(user_messages, str) else list(user_messages)
    collected: list[Event] = []
    for message in messages:
        if not quiet:
            logger.info("User > %s", message)
        content = types.UserContent(parts=[types.Part(text=message)])
        events = runner.run_async(
            user_id=user_id, session_id=session.id, new_message=content, run_config=run_config
        )
        async with aclosing(events) as stream:
            async for event in stream:
                if not quiet:
                    text = format_event(event, verbose=verbose)
                    if text:
                        sys.stdout.write(text + "\n")
                collected.append(event)
    return collected


def format_event(event: Event, *, verbose: bool) -> str:
    """One event as console lines, in google-adk's ``run_debug`` format.

    Consecutive text parts make one ``author > text`` line. With ``verbose``, thoughts are
    shown too and every other part gets a bracketed line (``[Calling tool: f({...})]``,
    ``[Tool result: ...]``, ``[Executing python code...]``, ``[Code output: ...]``,
    ``[Inline data: mime]``, ``[File: uri]``); without it they are left out.
    """
    content = event.content
    if content is None or not content.parts:
        return ""
    lines: list[str] = []
    text: list[str] = []
    for part in content.parts:
        if part.thought and not verbose:
            continue
        if part.text:
            text.append(part.text)
            continue
        if text:
            lines.append(f"{event.author} > {''.join(text)}")
            text = []
        note = _describe(part) if verbose else None
        if note is not None:
            lines.append(f"{event.author} > [{note}]")
    if text:
        lines.append(f"{event.author} > {''.join(text)}")
    return "\n".join(lines)


def _short(value: object, limit: int) -> str:
    text = str(value)
    return text[:limit] + "..." if len(text) > limit else text


def _describe(part: types.Part) -> str | None:
    if part.function_call:
        call = part.function_call
        return f"Calling tool: {call.name}({_short(call.args, 50)})"
    if part.function_response:
        return f"Tool result: {_short(part.function_response.response, 100)}"
    if part.executable_code:
        return f"Executing {part.executable_code.language or 'code'} code..."
    if part.code_execution_result:
        return f"Code output: {_short(part.code_execution_result.output or 'result', 100)}"
    if part.inline_data:
        return f"Inline data: {part.inline_data.mime_type or 'data'}"
    if part.file_data:
        return f"File: {part.file_data.file_uri or 'file'}"
    return None


class _Done:
    pass


class ThreadedRun:
    """Drives an async generator on a private loop in a thread, one item per request."""

    def __init__(self, agen: AsyncGenerator[Event, None]) -> None:
        self._agen = agen
        self._out: queue.Queue[Event | BaseException | _Done] = queue.Queue()
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._demand: asyncio.Queue[None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._finished = False
        context = contextvars.copy_context()  # the caller's span is the turn's parent
        self._thread = create_thread(context.run, self._thread_main)
        self._thread.name, self._thread.daemon = "adk-runner", True
        self._thread.start()
        self._ready.wait()

    def _thread_main(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._demand = asyncio.Queue()
        self._task = asyncio.current_task()
        self._ready.set()
        try:
            async with aclosing(self._agen) as events:
                while True:
                    await self._demand.get()
                    try:
                        event = await events.__anext__()
                    except StopAsyncIteration:
                        break
                    self._out.put(event)
        except asyncio.CancelledError:
            pass
        except BaseException as exc:  # re-raised in the caller's thread
            self._out.put(exc)
            return
        self._out.put(_Done())

    def __iter__(self) -> Iterator[Event]:
        assert self._loop is not None
        assert self._demand is not None
        while True:
            self._loop.call_soon_threadsafe(self._demand.put_nowait, None)
            item = self._out.get()
            if isinstance(item, _Done):
                self._finished = True
                return
            if isinstance(item, BaseException):
                self._finished = True
                raise item
            yield item

    def close(self) -> None:
        """Stop the run (if it is still going) and wait for its thread."""
        if not self._finished and self._loop is not None and self._task is not None:
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._task.cancel)
        self._thread.join()
