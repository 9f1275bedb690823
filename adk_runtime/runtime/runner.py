"""The Runner: load the session, then for every event the agent yields — commit, yield, resume.

``run_async`` drives one invocation (contract §2, docs/explanation/contract.md):

1. load the session (missing → ``SessionNotFoundError``, unless ``auto_create_session``);
2. commit the user event (author ``"user"``, carrying the caller's ``state_delta``), not yielded;
3. pick the agent to run (the agent the conversation was transferred to, else the root);
4. for each event the agent yields: commit it unless it is partial, yield it upstream, and only
   then let the agent resume, so after its ``yield`` the agent sees committed state and storage
   already holds the event.

If the agent raises, what was committed stays, nothing of the failed step is stored, and the
exception reaches the caller.

**One turn at a time, across replicas.** Before it loads or writes anything, a turn claims
its session in the store (:meth:`BaseSessionService.claim_session`): a lease renewed while
the turn runs, with a fencing token every append of the turn carries. A turn that finds the
session held waits up to ``session_wait_seconds`` for it, then fails with
:class:`SessionBusyError` having written nothing, so a user's message is never stored
without its turn. A holder that crashed stops renewing; its lease runs out after
``session_lease_seconds``.

**Idempotent messages.** With ``idempotency_key`` the user's event gets that id. Sending the
same key again on the session stores nothing and yields the events the first turn committed
(its answer) instead of running the agent again. If that turn died after storing the message
and before answering (the message is still the session's last event), the retry finishes it:
the agent runs once, under the first turn's invocation id.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, Generator
from contextlib import aclosing
from pathlib import Path
from types import EllipsisType
from typing import TYPE_CHECKING, Any

from google.genai import types

from adk_runtime._foreign import refuse_google_adk
from adk_runtime.apps.app import App
from adk_runtime.artifacts.base import BaseArtifactService
from adk_runtime.artifacts.memory import InMemoryArtifactService
from adk_runtime.core.base_agent import BaseAgent
from adk_runtime.core.base_plugin import BasePlugin
from adk_runtime.core.invocation_context import InvocationContext, new_invocation_context_id
from adk_runtime.core.plugin_manager import PluginManager
from adk_runtime.core.run_config import RunConfig
from adk_runtime.core.runner_factory import register_runner_factory
from adk_runtime.errors import SessionBusyError, UnsupportedFeatureError
from adk_runtime.events import Event
from adk_runtime.memory.base import BaseMemoryService
from adk_runtime.memory.in_memory import InMemoryMemoryService
from adk_runtime.runtime.app import agent_origin, alignment_hint, resolve_app
from adk_runtime.runtime.closing import close_agent_tools
from adk_runtime.runtime.debug import run_debug
from adk_runtime.runtime.message import validate_message, validate_run
from adk_runtime.runtime.recovery import resume_interrupted
from adk_runtime.runtime.routing import agent_to_run, transfers_back
from adk_runtime.runtime.sync import ThreadedRun
from adk_runtime.runtime.turn import Turn
from adk_runtime.sessions._validation import validate_id, validate_session_key
from adk_runtime.sessions.base import BaseSessionService
from adk_runtime.sessions.claims import DEFAULT_LEASE_SECONDS, DEFAULT_WAIT_SECONDS
from adk_runtime.sessions.invocations import OpenInvocation
from adk_runtime.sessions.memory import InMemorySessionService
from adk_runtime.sessions.session import Session

if TYPE_CHECKING:
    from adk_runtime.auth.credential_service.base_credential_service import (
        BaseCredentialService,
    )
    from adk_runtime.workflow import BaseNode

__all__ = ["InMemoryRunner", "Runner", "SessionBusyError"]

logger = logging.getLogger("adk_runtime.runners")


class Runner:
    """Runs an agent on sessions stored by a session service."""

    def __init__(
        self,
        *,
        app: App | None = None,
        app_name: str | None = None,
        agent: BaseAgent | None = None,
        node: BaseNode | None = None,
        plugins: list[BasePlugin] | None = None,
        session_service: BaseSessionService,
        artifact_service: BaseArtifactService | None = None,
        memory_service: BaseMemoryService | None = None,
        credential_service: BaseCredentialService | None = None,
        plugin_close_timeout: float = 5.0,
        auto_create_session: bool = False,
        session_wait_seconds: float = DEFAULT_WAIT_SECONDS,
        session_lease_seconds: float = DEFAULT_LEASE_SECONDS,
    ) -> None:
        """Create a runner from an ``app``, or from ``app_name`` and ``agent``.

        Args:
            app: The application (name, root agent, plugins). Not with ``agent`` or
                ``plugins``.
            app_name: The application's name; it keys every session. Required with
                ``agent``; with ``app`` it replaces ``app.name``.
            agent: The root agent (instead of ``app``); a workflow node given here runs as
                with ``node``.
            node: A workflow node to run as the root (instead of ``app`` or ``agent``; see
                ``adk_runtime.workflow``); ``app_name`` defaults to its name.
            plugins: Plugins for every invocation (deprecated in google-adk in favour of
                ``App(plugins=...)``; a ``DeprecationWarning`` says so).
            session_service: Where sessions and events are stored.
            artifact_service: Where artifacts are stored, if the agents use them.
            memory_service: Where memories are searched, if the agents use them.
            credential_service: Where tools keep the credentials they obtained
                (``tool_context.save_credential`` / ``load_credential``, ``CredentialManager``);
                needs the ``auth`` extra.
            plugin_close_timeout: The seconds each plugin's ``close()`` may take.
            auto_create_session: Create a missing session instead of raising
                ``SessionNotFoundError``.
            session_wait_seconds: How long a turn waits for a session another turn holds
                (here or on another replica) before failing with ``SessionBusyError``.
            session_lease_seconds: The lease of a turn's claim on its session, renewed while
                the turn runs: the longest a crashed process keeps a session busy.

        Raises:
            ValueError: Not exactly one of ``app``, ``agent`` and ``node``; ``agent`` without
                ``app_name``; ``plugins`` with ``app``; two plugins with the same name.
        """
        app = resolve_app(app, app_name, agent, plugins, node)
        app_name = app_name or app.name
        assert app.root_agent is not None  # App requires it; resolve_app sets it
        refuse_google_adk(
            "Runner",
            agent=app.root_agent,
            session_service=session_service,
            artifact_service=artifact_service,
            memory_service=memory_service,
        )
        self.app = app
        self.app_name = validate_id(app_name or app.name, "app_name")
        self.agent: BaseAgent = app.root_agent
        self.resumability_config = app.resumability_config
        self.context_cache_config = app.context_cache_config
        self.session_service = session_service
        self.artifact_service = artifact_service
        self.memory_service = memory_service
        self.credential_service = credential_service
        self.plugin_manager = PluginManager(
            plugins=list(app.plugins), close_timeout=plugin_close_timeout
        )
        self.auto_create_session = auto_create_session
        self.session_wait_seconds = session_wait_seconds
        self.session_lease_seconds = session_lease_seconds
        self._app_name_alignment_hint = alignment_hint(
            self.app_name, *self._infer_agent_origin(self.agent)
        )

    async def run_async(
        self,
        *,
        user_id: str,
        session_id: str,
        new_message: types.Content | None = None,
        state_delta: dict[str, Any] | None = None,
        run_config: RunConfig | None = None,
        invocation_id: str | None = None,
        idempotency_key: str | None = None,
        yield_user_message: bool = False,
        abort_signal: asyncio.Event | None = None,
    ) -> AsyncGenerator[Event, None]:
        """Run one invocation and yield its events as they are committed.

        Args:
            user_id: The user.
            session_id: The session to run on.
            new_message: The user's message, committed as the invocation's first event.
            state_delta: State changes committed with the user's message.
            run_config: Settings of this invocation.
            invocation_id: Reuse an id (e.g. to resume a paused invocation). Without
                ``new_message`` and ``state_delta``: resume that interrupted invocation from
                its last committed event (see "Durable execution" below).
            idempotency_key: A client-chosen id of this message (an event id: at most 128
                characters, no control characters). The user's event is stored under it; if
                it is stored already, nothing runs and the events its turn committed are
                yielded again.
            yield_user_message: Yield the committed user event (message and state delta)
                first, as google-adk does with it (also when an idempotency key finds it
                stored already).
            abort_signal: Set it (from this event loop) to stop the invocation: the agent
                is stopped (a model or tool wait at once), the invocation's unanswered
                function calls are answered with an error, and the events that say so
                (``error_code="INVOCATION_ABORTED"``) are committed and yielded last. The
                invocation is then closed, never resumed. Code of the invocation can do the
                same with ``InvocationContext.abort()``.

        Yields:
            Each event the agent produces: partial ones at once, the others once committed.

        Raises:
            SessionNotFoundError: The session does not exist (and auto-creation is off).
            SessionBusyError: Another turn still held the session after
                ``session_wait_seconds``; nothing was written.
            StaleSessionError: The session was written without a claim during the turn.
            ClaimLostError: This turn stalled past its lease and another turn took over.
            InvocationNotOpenError: Resuming an invocation that is not open (it finished, or
                another replica resumed it); nothing was written.
            InputValidationError: An id is malformed, the message carries function calls,
                or it answers a confirmation or credential request wrongly; nothing was
                written.
        """
        validate_run(self.app_name, user_id, session_id, invocation_id, idempotency_key)
        validate_message(new_message)
        turn = Turn(self, user_id, session_id, run_config, abort_signal)
        run = turn.run(new_message, state_delta, invocation_id, idempotency_key, yield_user_message)
        async with aclosing(run) as events:
            async for event in events:
                yield event

    def _new_invocation_context(
        self,
        session: Session,
        *,
        invocation_id: str | None = None,
        new_message: types.Content | None = None,
        live_request_queue: Any = None,
        run_config: RunConfig | None = None,
    ) -> InvocationContext:
        """A new invocation's context, for the root agent.

        google-adk's extension point: a subclass may override it to build a context type of
        its own (an ``InvocationContext`` subclass); every turn, resume and crash-resume
        builds its context here. Keep the signature.

        Raises:
            UnsupportedFeatureError: A ``live_request_queue`` (the Live API is not here).
        """
        if live_request_queue is not None:
            raise UnsupportedFeatureError(
                "A live_request_queue belongs to google-adk's Live API, which adk_runtime "
                "does not implement."
            )
        return InvocationContext(
            invocation_id=invocation_id or new_invocation_context_id(),
            session=session,
            agent=self.agent,
            session_service=self.session_service,
            artifact_service=self.artifact_service,
            memory_service=self.memory_service,
            credential_service=self.credential_service,
            user_content=new_message,
            run_config=run_config or RunConfig(),
            plugin_manager=self.plugin_manager,
            resumability_config=self.resumability_config,
            events_compaction_config=self.app.events_compaction_config,
            context_cache_config=self.context_cache_config,
            runner_factory=nested_runner,
        )

    def run_live(self, *args: Any, **kwargs: Any) -> AsyncGenerator[Event, None]:
        """google-adk's Live API entry point; not implemented here.

        Raises:
            UnsupportedFeatureError: Always (use ``run_async``; SSE streams text).
        """
        raise UnsupportedFeatureError(
            "Runner.run_live is google-adk's Live API (bidirectional streaming), which "
            "adk_runtime does not implement; use run_async (RunConfig(streaming_mode="
            "StreamingMode.SSE) streams text)."
        )

    async def resume_interrupted(
        self, *, user_id: str | None = None, session_id: str | None = None
    ) -> list[tuple[OpenInvocation, BaseException | None]]:
        """Resume every interrupted (failed or crashed) invocation of the app, oldest first.

        Each runs to its end as ``run_async(invocation_id=…)`` would (its events committed,
        not returned). One that cannot be resumed (another replica resumed it meanwhile, its
        session is busy, its agent fails again) is skipped: its error is returned with it.

        Args:
            user_id: Only this user's (None: every user's).
            session_id: Only this session's (needs ``user_id``).

        Returns:
            Each interrupted invocation found, with None when it was finished, else the error.
        """
        return await resume_interrupted(self, user_id, session_id)

    async def rewind_async(
        self,
        *,
        user_id: str,
        session_id: str,
        rewind_before_invocation_id: str,
        run_config: RunConfig | None = None,
    ) -> None:
        """Return the session's state and artifacts to what they were before an invocation.

        Committed as one event (author ``user``) carrying the reverting ``state_delta`` and
        ``artifact_delta`` and ``actions.rewind_before_invocation_id`` (see
        :mod:`adk_runtime.agents._rewind`); the log keeps every event, later turns no longer
        show the rewound ones to the model. A rewind holds the session like a turn does, so it
        never interleaves with one; it also closes an invocation left open.

        Args:
            user_id: The user.
            session_id: The session.
            rewind_before_invocation_id: The first invocation to undo (with all after it).
            run_config: Unused (google-adk's signature); the whole session is read.

        Raises:
            InvocationNotFoundError: No live event of the session belongs to it.
            SessionNotFoundError: The session does not exist.
            SessionBusyError: A turn still held the session after ``session_wait_seconds``.
        """
        validate_session_key(self.app_name, user_id, session_id)
        validate_id(rewind_before_invocation_id, "rewind_before_invocation_id")
        await Turn(self, user_id, session_id).rewind(rewind_before_invocation_id)

    def run(
        self,
        *,
        user_id: str,
        session_id: str,
        new_message: types.Content | None = None,
        state_delta: dict[str, Any] | None = None,
        run_config: RunConfig | None = None,
        idempotency_key: str | None = None,
    ) -> Generator[Event, None, None]:
        """Synchronous ``run_async``: the loop runs in a background thread.

        The agent resumes only when the caller asks for the next event, as with
        ``run_async``. An exception of the run is re-raised here; closing the generator early
        cancels the run (what was committed stays).
        """
        stream = ThreadedRun(
            self.run_async(
                user_id=user_id,
                session_id=session_id,
                new_message=new_message,
                state_delta=state_delta,
                run_config=run_config,
                idempotency_key=idempotency_key,
            )
        )
        try:
            yield from stream
        finally:
            stream.close()

    def _infer_agent_origin(self, agent: BaseAgent) -> tuple[str | None, Path | None]:
        """The app name ``agent``'s folder implies, and the folder (see ``_app_origin``)."""
        return agent_origin(agent)

    async def run_debug(
        self,
        user_messages: str | list[str],
        *,
        user_id: str = "debug_user_id",
        session_id: str = "debug_session_id",
        run_config: RunConfig | None = None,
        quiet: bool = False,
        verbose: bool = False,
    ) -> list[Event]:
        """Try an agent quickly: send the message(s) on one session, print and return events.

        The session is created when missing and reused otherwise, so calls continue one
        conversation. Printed: each message and the agents' text (``verbose`` adds tool calls
        and results; ``quiet`` prints nothing). For applications, use ``run_async``.
        """
        return await run_debug(
            self,
            user_messages,
            user_id=user_id,
            session_id=session_id,
            run_config=run_config,
            quiet=quiet,
            verbose=verbose,
        )

    async def close(self) -> None:
        """Close the plugins and what the agent tree holds (toolsets, MCP sessions and servers).

        Every tool, toolset and instruction provider of the tree with an async ``close()``
        is closed, then every plugin (``PluginManager.close``). The services were given to
        the Runner and stay open: close them yourself.

        Raises:
            PluginError: Some plugins failed to close (the tools were closed first).
        """
        await close_agent_tools(self.agent)
        await self.plugin_manager.close()

    async def __aenter__(self) -> Runner:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    def _find_agent_to_run(
        self,
        session: Session,
        root_agent: BaseAgent | None = None,
        *,
        call_event: Event | EllipsisType | None = ...,
    ) -> BaseAgent:
        """Pick the agent that continues the conversation.

        A message answering a function call goes to the agent that made the call: the call
        of ``call_event`` (None: the message answers none), or, when it is not given, the
        call the session's last event answers if that is the user's.
        Otherwise the author of the most recent agent event decides: the root agent, or a
        sub-agent the conversation was transferred to, if it (and every agent above it) may
        transfer back to its parent. Otherwise the root agent (``root_agent``, by default
        the Runner's) runs.
        """
        return agent_to_run(
            root_agent or self.agent, session, call_event, self._is_transferable_across_agent_tree
        )

    def _is_transferable_across_agent_tree(self, agent: BaseAgent) -> bool:
        """Whether ``agent`` and every agent above it may transfer back to its parent."""
        return transfers_back(agent)


class InMemoryRunner(Runner):
    """A Runner on an :class:`InMemorySessionService`, for tests and experiments."""

    def __init__(
        self,
        agent: BaseAgent | None = None,
        *,
        app_name: str | None = None,
        plugins: list[BasePlugin] | None = None,
        app: App | None = None,
        node: BaseNode | None = None,
        plugin_close_timeout: float = 5.0,
    ) -> None:
        """Create a runner with fresh in-memory services (``app_name``: ``InMemoryRunner``)."""
        if app is None and app_name is None:
            app_name = "InMemoryRunner"
        super().__init__(
            app=app,
            app_name=app_name,
            agent=agent,
            node=node,
            plugins=plugins,
            session_service=InMemorySessionService(),
            artifact_service=InMemoryArtifactService(),
            memory_service=InMemoryMemoryService(),
            plugin_close_timeout=plugin_close_timeout,
        )


def nested_runner(
    *,
    app_name: str,
    agent: BaseAgent,
    session_service: BaseSessionService,
    artifact_service: BaseArtifactService | None = None,
    memory_service: BaseMemoryService | None = None,
    credential_service: Any = None,
    plugin_manager: PluginManager | None = None,
) -> Runner:
    """The Runner of a nested run (``agents.runner_factory.RunnerFactory``).

    Every context a Runner builds carries it; it is registered for code without a context.
    """
    runner = Runner(
        app_name=app_name,
        agent=agent,
        session_service=session_service,
        artifact_service=artifact_service,
        memory_service=memory_service,
        credential_service=credential_service,
    )
    if plugin_manager is not None:  # shared, not copied: the calling Runner closes them
        runner.plugin_manager = plugin_manager
    return runner


register_runner_factory(nested_runner)
