"""One turn of the Runner, top to bottom. Read :meth:`Turn.run` first.

1. **claim** the session in the store (a lease with a fencing token; a turn that cannot get
   it writes nothing), creating it first when the Runner may;
2. **load** it;
3. **commit the user's message** (author ``"user"``, with the caller's ``state_delta``);
   a retried message found stored answers with what its turn committed. Steps 1-3 are one
   store step when the session is free (``TurnStart``, built by :meth:`Turn._start`: the
   message goes with it when no stored history can change it);
4. **run the agent**: for each event it yields, commit it unless it is partial (the append
   applies its state delta; ``temp:`` keys are stripped), then yield it (not a workflow
   checkpoint recorded only for resuming, ``agents._resume.shown``); only then does the agent
   resume, so it sees committed state;
5. **release** the claim: with the commit of the agent's last event when the agent says which
   it is (``BaseAgent._ends_run_with``: an ``LlmAgent``'s final response), in the same round
   trip; else the exit stack's last step.

The same loop resumes an invocation left open (``run_async(invocation_id=…)``, or the one a
crashed holder left, found when the claim is taken over), and stops an aborted one
(``adk_runtime.core._abort``: its unanswered calls are sealed). :meth:`Turn.rewind` commits one
reverting event under the claim. Which agent runs is :mod:`~adk_runtime.runtime.routing`'s;
the user's event :mod:`~adk_runtime.runtime.message`'s; the run-level plugin hooks
:mod:`~adk_runtime.runtime.plugins`'.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from google.genai import types

from adk_runtime import telemetry
from adk_runtime.agents import _resume, _rewind, _tasks
from adk_runtime.agents._answer_checks import check_client_answers
from adk_runtime.core._abort import sealing_events, until_aborted
from adk_runtime.core.invocation_context import InvocationContext, new_invocation_context_id
from adk_runtime.core.run_config import RunConfig
from adk_runtime.errors import AlreadyExistsError, InvocationNotOpenError, SessionNotFoundError
from adk_runtime.events import Event
from adk_runtime.events.compaction_view import is_compaction
from adk_runtime.runtime import message as _message
from adk_runtime.runtime.app import compact
from adk_runtime.runtime.plugins import plugin_message, run_with_plugins
from adk_runtime.runtime.routing import (
    agent_resumed,
    answered_event,
    continue_with,
    function_call_event,
)
from adk_runtime.sessions._prepare import apply_result, check_retry, prepare_append
from adk_runtime.sessions.base import BaseSessionService, GetSessionConfig
from adk_runtime.sessions.claims import SessionClaim, TurnStart
from adk_runtime.sessions.session import Session
from adk_runtime.sessions.state import State

if TYPE_CHECKING:
    from adk_runtime.core.base_agent import BaseAgent
    from adk_runtime.runtime.runner import Runner

__all__ = ["Turn", "without_temp"]


class Turn:
    """One ``run_async`` (or ``rewind_async``) of a Runner on one session.

    It reads the Runner's settings (services, root agent, waits) when it runs, and builds each
    context through the Runner's ``_new_invocation_context`` and picks the agent through its
    ``_find_agent_to_run``: google-adk's extension points, which a subclass may override.
    """

    def __init__(
        self,
        runner: Runner,
        user_id: str,
        session_id: str,
        run_config: RunConfig | None = None,
        abort_signal: asyncio.Event | None = None,
    ) -> None:
        """A turn of ``runner`` on session ``session_id`` of ``user_id``."""
        self.runner = runner
        self.service = runner.session_service
        self.user_id = user_id
        self.session_id = session_id
        self.run_config = run_config or RunConfig()
        self.abort_signal = abort_signal

    async def run(
        self,
        new_message: types.Content | None = None,
        state_delta: dict[str, Any] | None = None,
        invocation_id: str | None = None,
        idempotency_key: str | None = None,
        yield_user_message: bool = False,
    ) -> AsyncGenerator[Event, None]:
        """The loop (see the module docstring); an id without a message resumes it."""
        resuming = invocation_id is not None and new_message is None and not state_delta
        own_id = invocation_id or new_invocation_context_id()  # chosen before the claim
        async with contextlib.AsyncExitStack() as stack:
            span = stack.enter_context(
                telemetry.turn(self.runner.app_name, self.user_id, self.session_id)
            )
            if resuming:
                claim = await self._claim(stack, None, self._read_too())  # 1. claim (and read)
                assert invocation_id is not None
                session = await self._load(claim, None, resuming=invocation_id)  # 2. load
                span.started(invocation_id, self.runner.agent.name)
                ctx, shown = self._resumed(session, invocation_id), list[Event]()
            else:
                start = self._start(
                    new_message, state_delta, invocation_id, own_id, idempotency_key
                )
                claim = await self._claim(stack, own_id, start)  # 1. claim (read, message)
                session = await self._load(claim, self.run_config)  # 2. load
                session, ctx, shown = await self._commit_message(  # 3. commit the message
                    claim, session, new_message, state_delta, invocation_id, own_id,
                    idempotency_key, yield_user_message, start,
                )  # fmt: skip
            for event in shown:
                yield event
            if ctx is None:  # answered already (a retried message), or nothing to resume
                claim.finish()
                return
            if not resuming:
                span.started(ctx.invocation_id, ctx.agent.name)
            # 4. run the agent: commit each event that is not partial, then yield it
            async with aclosing(self._agent_events(ctx, self.abort_signal)) as events:
                async for event in events:
                    if event.partial:
                        yield without_temp(event)
                        continue
                    span.events += 1
                    stored = await self._commit(claim, ctx, session, event, resuming)
                    if _resume.shown(ctx, event):  # not a checkpoint kept for resuming only
                        yield stored
            for event in self._sealing(ctx, session):  # an aborted invocation's last events
                span.events += 1
                yield await self.service.append_event(session, event)
            if not resuming and not ctx.is_aborted:
                await compact(self.runner.app, self.service, session)
            claim.finish()  # 5. release: the stack's exit, with the invocation closed

    async def rewind(self, invocation_id: str) -> None:
        """``Runner.rewind_async``: one reverting event, committed under the session's claim."""
        async with contextlib.AsyncExitStack() as stack:
            claim = await self._claim(stack, None, self._read_too())
            session = await self._load(claim, None)
            event = await _rewind.rewind_event(
                session, invocation_id, self.runner.artifact_service, self.service
            )
            await self.service.append_event(session, event)
            claim.finish()

    def _start(
        self,
        new_message: types.Content | None,
        state_delta: dict[str, Any] | None,
        invocation_id: str | None,
        own_id: str,
        idempotency_key: str | None,
    ) -> TurnStart | None:
        """What the claim's round trip also does: read the session, and commit the message.

        The message goes with the claim only when its event is the same whatever the session
        holds (:func:`~adk_runtime.runtime.message.independent_of_history`); the store
        commits it only if the session is free (its last turn released it: no crashed turn
        to finish first). None: a service that overrides ``get_session`` or
        ``append_event`` (google-adk's extension points) sees each step on its own.
        """
        config = self.run_config.get_session_config
        if self._read_too(config) is None:
            return None
        if invocation_id is not None or (new_message is None and not state_delta):
            return TurnStart(config)
        runner = self.runner
        if not _message.independent_of_history(runner.agent, new_message, runner.plugin_manager):
            return TurnStart(config)
        event = self._user_event(own_id, new_message, state_delta, idempotency_key)
        blank = Session(id=self.session_id, app_name=runner.app_name, user_id=self.user_id)
        prepared, temp = prepare_append(blank, event)
        return TurnStart(config, prepared, temp)

    def _read_too(self, config: GetSessionConfig | None = None) -> TurnStart | None:
        """A start that reads the session with the claim (None: the service's own steps)."""
        kind = type(self.service)
        if any(
            getattr(kind, name) is not getattr(BaseSessionService, name)
            for name in ("get_session", "append_event", "commit_event")
        ):
            return None
        return TurnStart(config)

    def _user_event(
        self,
        invocation_id: str,
        new_message: types.Content | None,
        state_delta: dict[str, Any] | None,
        idempotency_key: str | None,
    ) -> Event:
        event = _message.user_event(invocation_id, new_message, state_delta, idempotency_key)
        event.custom_metadata = self.run_config.custom_metadata or None
        return event

    async def _commit_message(
        self,
        claim: SessionClaim,
        session: Session,
        new_message: types.Content | None,
        state_delta: dict[str, Any] | None,
        invocation_id: str | None,
        own_id: str,
        idempotency_key: str | None,
        yield_user_message: bool,
        start: TurnStart | None,
    ) -> tuple[Session, InvocationContext | None, list[Event]]:
        """Step 3: the session, the context to run (None: nothing runs), the events to show.

        A claim taken over from a holder that died first finishes what that holder left. The
        events shown are the user's event (if the caller asked for it) and, for a retried
        message whose turn had answered, that answer. A message committed with the claim
        (``start.message``) is only applied to the session object here.
        """
        if claim.took_over:  # the last holder died: finish what it left, if anything
            session = await self._finish_interrupted(claim, session, idempotency_key, own_id)
        root = self.runner.agent
        call_event = answered_event(root, session, new_message)
        if invocation_id is None and call_event is not None:
            invocation_id = call_event.invocation_id  # resume the paused invocation
        continuing = invocation_id is not None
        ctx = self._context(session, invocation_id or own_id, continuing, new_message)
        early = None if claim.started is None else claim.started.message
        if early is not None:  # committed with the claim: no plugin changes such a message
            assert start is not None
            assert start.message is not None
            if early.already_stored:  # a retry: the stored event must be this message
                check_retry(self.session_id, start.message, early.event)
            apply_result(session, start.message, start.temp, early)
        elif new_message is not None:
            new_message = await plugin_message(ctx, new_message, idempotency_key)
        agent = self.runner._find_agent_to_run(session, call_event=call_event)
        shown: list[Event] = []
        if early is not None or new_message is not None or state_delta:
            if early is not None:
                result = early
            else:
                event = self._user_event(
                    ctx.invocation_id, new_message, state_delta, idempotency_key
                )
                # a reply to a task agent's question goes to it
                event.isolation_scope = _tasks.active_scope(session.events, root, call_event)
                _message.place_reply(event, call_event)  # a reply to a task node's question
                await check_client_answers(agent, ctx, event)  # a refused answer is not stored
                # an answer continues a paused invocation: it is the open one before the
                # answer is stored, so a crash right after the commit leaves it resumable (no
                # round trip for a new message: its id was claimed with the session)
                await claim.mark(ctx.invocation_id)
                result = await self.service.commit_event(session, event)
            answer = await _message.stored_answer(self.service, session, result, self._missing)
            shown = [result.event] * yield_user_message + (answer or [])
            if answer is not None:
                return session, None, shown
            if result.already_stored:
                # The message is the last event and its turn left nothing: the process that
                # stored it died. Finish that turn now, under its invocation id.
                ctx.invocation_id = result.event.invocation_id
                ctx.user_content = result.event.content
        await claim.mark(ctx.invocation_id)  # no round trip unless the id changed above
        continue_with(ctx, agent, call_event)
        return session, ctx, shown

    async def _commit(
        self,
        claim: SessionClaim,
        ctx: InvocationContext,
        session: Session,
        event: Event,
        resuming: bool,
    ) -> Event:
        """Commit one of the agent's events; the invocation's last also releases (step 5)."""
        if self._last(ctx, event, resuming):
            return await self._commit_last(claim, session, event)
        return await self.service.append_event(session, event)

    def _last(self, ctx: InvocationContext, event: Event, resuming: bool) -> bool:
        """``event`` is the invocation's last: its commit may release the claim.

        The agent says so (``BaseAgent._ends_run_with``); nothing the turn itself commits
        after the agent's events may follow (an abort's sealing events, a compaction).
        """
        if ctx.is_aborted or (not resuming and self.runner.app.events_compaction_config):
            return False
        return ctx.agent._ends_run_with(ctx, event)

    async def _commit_last(self, claim: SessionClaim, session: Session, event: Event) -> Event:
        """Commit the invocation's last event and release the claim in the same step.

        A store that cannot release in a commit leaves ``session._release_on_commit`` set:
        then the claim is released on the turn's exit, as after any other event.
        """
        await claim.before_releasing_commit()
        session._release_on_commit = True
        try:
            return await self.service.append_event(session, event)
        finally:
            claim.after_releasing_commit(not session._release_on_commit)
            session._release_on_commit = False

    def _agent_events(
        self, ctx: InvocationContext, abort_signal: asyncio.Event | None
    ) -> AsyncGenerator[Event, None]:
        """``ctx.agent``'s events, through the plugins, until the invocation is aborted."""
        ctx._abort.attach(abort_signal)
        return until_aborted(ctx, run_with_plugins(ctx, ctx.agent.run_async(ctx)))

    def _sealing(self, ctx: InvocationContext, session: Session) -> list[Event]:
        """The events that close an aborted invocation (none if it was not aborted)."""
        if not ctx.is_aborted:
            return []
        root = self.runner.agent.name
        return sealing_events(session.events, ctx.invocation_id, root, ctx.branch)

    def _resumed(self, session: Session, invocation_id: str) -> InvocationContext | None:
        """The context that runs invocation ``invocation_id`` on from its committed events.

        None when it stopped before its first event: nothing was started.
        """
        committed = _resume.invocation_events(session.events, invocation_id)
        if not committed:
            return None
        message = next((event for event in committed if event.author == "user"), None)
        content = message.content if message is not None else None
        before = session.model_copy(
            update={"events": session.events[: session.events.index(committed[0])]}
        )
        call_event = function_call_event(before, content)
        caller = self.runner._find_agent_to_run(before, call_event=call_event)
        ctx = self._context(
            session, invocation_id, True, content, agent_resumed(caller, call_event)
        )
        _resume.start(ctx, committed)
        return ctx

    async def _run_to_end(self, session: Session, invocation_id: str) -> None:
        """Resume ``invocation_id`` and commit its events without showing them to anyone."""
        ctx = self._resumed(session, invocation_id)
        if ctx is None:
            return
        async with aclosing(self._agent_events(ctx, None)) as events:
            async for event in events:
                if not event.partial:
                    await self.service.append_event(session, event)
        for event in self._sealing(ctx, session):
            await self.service.append_event(session, event)

    async def _finish_interrupted(
        self,
        claim: SessionClaim,
        session: Session,
        idempotency_key: str | None,
        own_id: str,
    ) -> Session:
        """Finish the invocation a crashed turn left open (the claim was taken over).

        A turn whose process died (or stalled past its lease) leaves its invocation open; the
        next turn on the session, from any replica, first resumes it from its last committed
        event (committed, not yielded to this caller; a retry of that message with its
        idempotency key gets the answer), then runs its own. A claim taken by code that
        records no invocation leaves none: then only a user message left last is answered. A
        turn that failed with an error released its claim: it is not run again here.

        Returns:
            The session object the turn continues with.
        """
        dead = claim.open_invocation
        if dead is not None and dead != own_id:
            session = await self._load(claim, None)
            await self._run_to_end(session, dead)
            await claim.mark(own_id)
            return session
        # A compaction event (author "user" as in google-adk) is never a message to answer.
        message = next((e for e in reversed(session.events) if not is_compaction(e)), None)
        if message is None or message.author != "user" or message.id == idempotency_key:
            return session  # nothing left half done, or this call's own retry (answered later)
        await self._run_to_end(session, message.invocation_id)
        return session

    def _context(
        self,
        session: Session,
        invocation_id: str,
        continuing: bool,
        message: types.Content | None,
        agent: BaseAgent | None = None,
    ) -> InvocationContext:
        """The context of a new invocation, or (``continuing``) of one that has events.

        ``agent``: the one to run (default: the root agent).
        """
        ctx = self.runner._new_invocation_context(
            session, invocation_id=invocation_id, new_message=message, run_config=self.run_config
        )
        if agent is not None:
            ctx.agent = agent
        ctx._durable = True  # workflow agents record checkpoints: any invocation can resume
        if continuing:  # its agents' states, from its committed events
            ctx.populate_invocation_agent_states()
        return ctx

    async def _claim(
        self,
        stack: contextlib.AsyncExitStack,
        invocation_id: str | None,
        start: TurnStart | None,
    ) -> SessionClaim:
        """Step 1: hold the session (creating it first if allowed and missing).

        The claim records ``invocation_id`` as the session's open invocation (None: leaves it
        as it is); the turn calls ``claim.finish()`` when it ends normally. ``start``: what the
        acquisition's round trip also does where the store can (``claim.started``).
        """
        runner = self.runner

        def claim() -> SessionClaim:
            return self.service.claim_session(
                app_name=runner.app_name,
                user_id=self.user_id,
                session_id=self.session_id,
                wait_seconds=runner.session_wait_seconds,
                lease_seconds=runner.session_lease_seconds,
                invocation_id=invocation_id,
                start=start,
            )

        try:
            return await stack.enter_async_context(claim())
        except SessionNotFoundError:
            if not runner.auto_create_session:
                raise self._missing() from None
        with contextlib.suppress(AlreadyExistsError):  # another replica created it first
            await self.service.create_session(
                app_name=runner.app_name, user_id=self.user_id, session_id=self.session_id
            )
        return await stack.enter_async_context(claim())

    async def _load(
        self, claim: SessionClaim, run_config: RunConfig | None, *, resuming: str | None = None
    ) -> Session:
        """Step 2: read the session; its appends carry the claim's fencing token.

        Raises:
            InvocationNotOpenError: ``resuming`` is not the session's open invocation (it
                finished, was resumed elsewhere, or was replaced); nothing was written.
        """
        if resuming is not None and claim.open_invocation != resuming:
            raise InvocationNotOpenError(resuming, self.session_id)
        session = claim.take_started_session()  # read with the claim, where the store could
        if session is None:
            session = await self.service.get_session(
                app_name=self.runner.app_name,
                user_id=self.user_id,
                session_id=self.session_id,
                config=None if run_config is None else run_config.get_session_config,
            )
        if session is None:  # deleted between the claim and the read
            raise self._missing()
        session._fence = claim.token
        return session

    def _missing(self) -> SessionNotFoundError:
        hint = self.runner._app_name_alignment_hint
        return SessionNotFoundError(
            f"Session not found: {self.session_id!r} of user {self.user_id!r} in app "
            f"{self.runner.app_name!r}. Create it first, or build the Runner with "
            f"auto_create_session=True.{f' {hint}' if hint else ''}"
        )


def without_temp(event: Event) -> Event:
    """``event`` as yielded: its ``temp:`` state keys stripped (a copy, if it had any)."""
    delta = event.actions.state_delta
    if not any(key.startswith(State.TEMP_PREFIX) for key in delta):
        return event
    kept = {k: v for k, v in delta.items() if not k.startswith(State.TEMP_PREFIX)}
    actions = event.actions.model_copy(update={"state_delta": kept})
    return event.model_copy(update={"actions": actions})
