"""The Runner's durable-execution steps: resume, finish what a crash left, rewind.

Functions of a :class:`~adk_runtime.runners.Runner` kept out of ``runners.py`` so the Runner
module stays the loop (load, append, run, commit, yield). What a resumed agent does is in
:mod:`adk_runtime.agents._resume`; how a rewind event is built in
:mod:`adk_runtime.agents._rewind`; how the store records open invocations in
:mod:`adk_runtime.sessions.invocations`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import TYPE_CHECKING

from adk_runtime import telemetry
from adk_runtime.agents import _resume, _rewind
from adk_runtime.core._abort import sealing_events, until_aborted
from adk_runtime.core.run_config import RunConfig
from adk_runtime.errors import InvocationNotOpenError
from adk_runtime.events import Event
from adk_runtime.events.compaction_view import is_compaction
from adk_runtime.runtime.plugins import run_with_plugins
from adk_runtime.runtime.routing import agent_resumed, function_call_event, without_temp
from adk_runtime.sessions.claims import SessionClaim
from adk_runtime.sessions.invocations import OpenInvocation
from adk_runtime.sessions.session import Session

if TYPE_CHECKING:
    from adk_runtime.core.invocation_context import InvocationContext
    from adk_runtime.runtime.runner import Runner

__all__ = [
    "commit_agent_events",
    "continue_invocation",
    "finish_interrupted",
    "resume_async",
    "resume_interrupted",
    "rewind",
]


async def resume_async(
    runner: Runner,
    user_id: str,
    session_id: str,
    invocation_id: str,
    run_config: RunConfig,
    abort_signal: asyncio.Event | None = None,
) -> AsyncGenerator[Event, None]:
    """Continue the open invocation ``invocation_id`` from its last committed event.

    Raises:
        InvocationNotOpenError: It is not the session's open invocation (it finished, was
            resumed elsewhere, or was replaced); nothing was written.
    """
    async with contextlib.AsyncExitStack() as stack:
        turn = stack.enter_context(telemetry.turn(runner.app_name, user_id, session_id))
        claim = await runner._claim(stack, user_id, session_id, None)
        if claim.open_invocation != invocation_id:
            raise InvocationNotOpenError(invocation_id, session_id)
        session = await runner._load_session(user_id, session_id, None)
        session._fence = claim.token
        turn.started(invocation_id, runner.agent.name)
        async with aclosing(
            continue_invocation(runner, session, invocation_id, run_config, abort_signal)
        ) as events:
            async for event in events:
                if not event.partial:
                    turn.events += 1
                yield event
        claim.finish()


async def continue_invocation(
    runner: Runner,
    session: Session,
    invocation_id: str,
    run_config: RunConfig,
    abort_signal: asyncio.Event | None = None,
) -> AsyncGenerator[Event, None]:
    """Run invocation ``invocation_id`` on from its committed events (commit, then yield)."""
    committed = _resume.invocation_events(session.events, invocation_id)
    if not committed:
        return  # it stopped before its first event: nothing was started
    message = next((event for event in committed if event.author == "user"), None)
    content = message.content if message is not None else None
    before = session.model_copy(
        update={"events": session.events[: session.events.index(committed[0])]}
    )
    call_event = function_call_event(before, content)
    agent = agent_resumed(runner._find_agent_to_run(before, call_event=call_event), call_event)
    ctx = runner._context(session, invocation_id, True, content, run_config, agent)
    _resume.start(ctx, committed)
    async with aclosing(commit_agent_events(runner, session, ctx, abort_signal)) as events:
        async for event in events:
            yield event


async def commit_agent_events(
    runner: Runner, session: Session, ctx: InvocationContext, abort_signal: asyncio.Event | None
) -> AsyncGenerator[Event, None]:
    """Run ``ctx.agent``: commit, then yield, each event (partial ones are only yielded).

    It stops when the agent ends or the invocation is aborted (``_abort``); an aborted
    invocation's sealing events are committed and yielded last.
    """
    ctx._abort.attach(abort_signal)
    agent_events = until_aborted(ctx, run_with_plugins(ctx, ctx.agent.run_async(ctx)))
    async with aclosing(agent_events) as events:
        async for event in events:
            if event.partial:
                yield without_temp(event)
                continue
            yield await runner.session_service.append_event(session, event)
    if ctx.is_aborted:
        root = runner.agent.name
        for event in sealing_events(session.events, ctx.invocation_id, root, ctx.branch):
            yield await runner.session_service.append_event(session, event)


async def finish_interrupted(
    runner: Runner,
    claim: SessionClaim,
    session: Session,
    run_config: RunConfig,
    idempotency_key: str | None,
    own_id: str,
) -> Session:
    """Finish the invocation a crashed turn left open (the claim was taken over).

    A turn whose process died (or stalled past its lease) leaves its invocation open; the
    next turn on the session, from any replica, first resumes it from its last committed
    event (committed, not yielded to this caller; a retry of that message with its
    idempotency key gets the answer), then runs its own. A claim taken by code that records no
    invocation leaves none: then only a user message left last is answered. A turn that
    failed with an error released its claim: it is not run again here.

    Returns:
        The session object the turn continues with.
    """
    dead = claim.open_invocation
    if dead is not None and dead != own_id:
        session = await runner._load_session(session.user_id, session.id, None)
        session._fence = claim.token
        async with aclosing(continue_invocation(runner, session, dead, run_config)) as events:
            async for _ in events:
                pass
        await claim.mark(own_id)
        return session
    # A compaction event (author "user" as in google-adk) is never a message to answer.
    message = next((e for e in reversed(session.events) if not is_compaction(e)), None)
    if message is None or message.author != "user" or message.id == idempotency_key:
        return session  # nothing left half done, or this call's own retry (answered later)
    async with aclosing(
        continue_invocation(runner, session, message.invocation_id, run_config)
    ) as events:
        async for _ in events:
            pass
    return session


async def resume_interrupted(
    runner: Runner, user_id: str | None, session_id: str | None
) -> list[tuple[OpenInvocation, BaseException | None]]:
    """``Runner.resume_interrupted``."""
    found = await runner.session_service.list_interrupted_invocations(
        app_name=runner.app_name, user_id=user_id, session_id=session_id
    )
    outcomes: list[tuple[OpenInvocation, BaseException | None]] = []
    for item in found:
        try:
            async with aclosing(
                runner.run_async(
                    user_id=item.user_id,
                    session_id=item.session_id,
                    invocation_id=item.invocation_id,
                )
            ) as events:
                async for _ in events:
                    pass
        except Exception as exc:
            outcomes.append((item, exc))
        else:
            outcomes.append((item, None))
    return outcomes


async def rewind(runner: Runner, user_id: str, session_id: str, invocation_id: str) -> None:
    """``Runner.rewind_async``: one event, under the session's claim."""
    async with contextlib.AsyncExitStack() as stack:
        claim = await runner._claim(stack, user_id, session_id, None)
        session = await runner._load_session(user_id, session_id, None)
        session._fence = claim.token
        event = await _rewind.rewind_event(
            session, invocation_id, runner.artifact_service, runner.session_service
        )
        await runner.session_service.append_event(session, event)
        claim.finish()
