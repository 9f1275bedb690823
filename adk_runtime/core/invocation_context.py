"""InvocationContext: everything one ``Runner.run_async`` call shares between its agents."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, SkipValidation, field_validator

from adk_runtime.artifacts.base import BaseArtifactService
from adk_runtime.core._abort import AbortState
from adk_runtime.core._adapters import as_agent
from adk_runtime.core._compaction_config import EventsCompactionConfig
from adk_runtime.core._resumability import ResumabilityConfig
from adk_runtime.core.plugin_manager import PluginManager
from adk_runtime.core.run_config import RunConfig
from adk_runtime.core.runner_factory import RunnerFactory
from adk_runtime.errors import LlmCallsLimitExceededError, UnsupportedFeatureError
from adk_runtime.events._calls import calling_event
from adk_runtime.memory.base import BaseMemoryService
from adk_runtime.models._context_cache_config import ContextCacheConfig
from adk_runtime.platform import uuid as platform_uuid
from adk_runtime.sessions.base import BaseSessionService
from adk_runtime.sessions.session import Session

if TYPE_CHECKING:
    from adk_runtime.core.base_agent import BaseAgent, BaseAgentState
    from adk_runtime.events import Event

__all__ = [
    "InvocationContext",
    "LlmCallsLimitExceededError",
    "new_invocation_context_id",
]


def new_invocation_context_id() -> str:
    """Return a new invocation id (``"e-"`` and a new id from :mod:`adk_runtime.platform`)."""
    return "e-" + platform_uuid.new_uuid()


class InvocationContext(BaseModel):
    """The state of one invocation: its session, services, agent and settings.

    Attributes:
        invocation_id: ``"e-"`` + uuid4 unless the caller chose one.
        session: The session being run; its ``state`` includes dirty writes and ``temp:`` keys.
        agent: The agent currently running. A workflow node given here (google-adk 2 takes
            one) runs as the agent a Runner makes of a root node (a ``NodeAgent``).
        session_service: Where events are committed.
        artifact_service: Where artifacts are saved, if configured.
        memory_service: Where memories are searched, if configured.
        user_content: The user message that started the invocation.
        branch: ``parent.child`` path isolating parallel sub-agents' histories.
        isolation_scope: The delegated task being run (the id of the call that delegated
            it; see ``LlmAgent.mode``), or None: the agent sees only the events of its scope.
        end_invocation: Set to stop the invocation after the current step.
        run_config: The settings of this invocation.
        plugin_manager: The Runner's plugins (none when the context is built by hand).
        resumability_config: The app's ``ResumabilityConfig``. With ``is_resumable`` the
            agents record google-adk's checkpoint events (see :attr:`is_resumable`); the
            Runner's invocations can be resumed either way (see ``records_checkpoints``).
        agent_states: Agent name to the state it recorded in this invocation (the dict form
            of its ``BaseAgentState``), as google-adk keeps it for custom resumable agents
            (``set_agent_state``, ``BaseAgent._load_agent_state``). Filled from the committed
            events when an invocation is resumed (``populate_invocation_agent_states``).
        end_of_agents: Agent name to whether it finished in this invocation.
        events_compaction_config: The app's ``EventsCompactionConfig``: with its token
            threshold, a summary may be taken before a model call (the Runner sets it).
        context_cache_config: The app's ``ContextCacheConfig``: set, every model request
            carries it so that a Gemini model caches the request's stable prefix (the Runner
            sets it).
        credential_service: Where tools keep the credentials they obtained (a
            ``adk_runtime.auth.credential_service.BaseCredentialService``), if configured.
        credential_by_key: The credentials resolved for toolsets in this invocation, by
            credential key (``ReadonlyContext.get_credential``); never stored.
        runner_factory: Makes the Runner of a nested run (``AgentTool``, ``NodeTool``); the
            Runner sets it (see :mod:`adk_runtime.core.runner_factory`).
    """

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    invocation_id: str
    session: Session
    agent: BaseAgent
    session_service: BaseSessionService
    artifact_service: BaseArtifactService | None = None
    memory_service: BaseMemoryService | None = None
    user_content: types.Content | None = None
    branch: str | None = None
    isolation_scope: str | None = None
    end_invocation: bool = False
    run_config: RunConfig = Field(default_factory=RunConfig)
    plugin_manager: PluginManager = Field(default_factory=PluginManager)
    resumability_config: ResumabilityConfig | None = None
    agent_states: dict[str, dict[str, Any]] = Field(default_factory=dict)
    end_of_agents: dict[str, bool] = Field(default_factory=dict)
    events_compaction_config: EventsCompactionConfig | None = None
    context_cache_config: ContextCacheConfig | None = None
    # A BaseCredentialService: typed loosely, as the auth extra may not be installed.
    credential_service: Any = None
    credential_by_key: dict[str, Any] = Field(default_factory=dict)
    runner_factory: SkipValidation[RunnerFactory | None] = None

    @field_validator("agent", mode="before")
    @classmethod
    def _node_as_agent(cls, value: Any) -> Any:
        """A workflow node runs as the root agent a Runner makes of it, as in an App."""
        return as_agent(value)  # an agent (or anything else) is passed on as it is

    # Shared by the copies made for sub-agents and branches, so the limit is per invocation.
    _llm_calls: list[int] = PrivateAttr(default_factory=lambda: [0])
    # Set when this run resumes an interrupted invocation (agents/_resume.py); shared too.
    _resume: Any = PrivateAttr(default=None)
    # Set by the Runner: its invocations are durable, so workflow agents record checkpoints.
    _durable: bool = PrivateAttr(default=False)
    # Ids of checkpoints recorded only because the Runner's invocations are durable: committed,
    # not yielded (google-adk's stream has none outside its resumable mode); shared too.
    _resume_only: set[str] = PrivateAttr(default_factory=set)
    # google-adk's copy of run_config.custom_metadata, for low-level telemetry.
    _custom_metadata: dict[str, Any] = PrivateAttr(default_factory=dict)
    # The invocation's abort request (adk_runtime/_abort.py); shared by the copies too.
    _abort: AbortState = PrivateAttr(default_factory=AbortState)
    # google-adk's hand-off queue between workflow nodes and its Runner; ours never sets it.
    _event_queue: asyncio.Queue[tuple[Event, asyncio.Event | None]] | None = PrivateAttr(
        default=None
    )

    def model_post_init(self, context: Any, /) -> None:
        """Copy ``run_config.custom_metadata`` to ``_custom_metadata`` (as google-adk does)."""
        if self.run_config.custom_metadata:
            self._custom_metadata.update(self.run_config.custom_metadata)

    @property
    def is_aborted(self) -> bool:
        """Whether the invocation was asked to stop (``abort()`` or the ``abort_signal``)."""
        return self._abort.requested

    def abort(self) -> None:
        """Ask the Runner to stop this invocation; safe to call from any thread.

        The Runner stops the agent (a model or tool wait is cancelled at once, otherwise it
        stops at the next event), answers the invocation's unanswered function calls with an
        error (``error_code="INVOCATION_ABORTED"``) and closes the invocation: it is not
        resumed. On a context that no Runner runs, it only sets :attr:`is_aborted`.
        """
        self._abort.request()

    @property
    def is_resumable(self) -> bool:
        """The app asked for google-adk's resumable mode (``ResumabilityConfig(True)``).

        Then the agents yield google-adk's checkpoint events: workflow agents their
        ``agent_state`` / ``end_of_agent`` events, and every ``LlmAgent`` an ``end_of_agent``
        event when it finishes. An invocation run by the Runner can be resumed whatever this
        says (its workflow agents record their checkpoints anyway, see
        :attr:`records_checkpoints`); a context built by hand without the config records none.
        """
        config = self.resumability_config
        return config is not None and config.is_resumable

    @property
    def records_checkpoints(self) -> bool:
        """Workflow agents yield checkpoint events: the app is resumable, or the Runner runs it.

        The Runner needs them to resume an interrupted invocation (``agents/_resume.py``).
        """
        return self._durable or self.is_resumable

    async def _enqueue_event(self, event: Event) -> None:
        """Hand ``event`` to whoever consumes ``_event_queue`` (google-adk's node hand-off).

        A complete event waits until the consumer sets the ``asyncio.Event`` queued with it; a
        partial one does not wait.

        Raises:
            UnsupportedFeatureError: No queue is set (the Runner here never sets one: agents
                yield their events instead).
        """
        if self._event_queue is None:
            raise UnsupportedFeatureError(
                "InvocationContext._event_queue is not set: adk_runtime's Runner commits the "
                "events an agent yields; yield the event instead of enqueueing it."
            )
        if event.partial:
            await self._event_queue.put((event, None))
            return
        done = asyncio.Event()
        await self._event_queue.put((event, done))
        await done.wait()

    def call_attempt(self, function_call_id: str | None) -> int:
        """Which run of this function call this is: 1, or 2 when a resumption runs it again.

        A call whose request was committed without its response (the process died while it
        ran) is run again when the invocation is resumed: it may have run before, so a tool
        with side effects should use the call id as its idempotency key.
        """
        retried = getattr(self._resume, "retried_calls", ())
        return 2 if function_call_id is not None and function_call_id in retried else 1

    def set_agent_state(
        self,
        agent_name: str,
        *,
        agent_state: BaseAgentState | None = None,
        end_of_agent: bool = False,
    ) -> None:
        """Record an agent's progress in this invocation (what its next state event carries).

        ``end_of_agent``: it finished (its state is dropped). Otherwise ``agent_state``: where
        it is (and it has not finished). Neither: forget both, so the agent runs afresh.
        """
        if end_of_agent:
            self.end_of_agents[agent_name] = True
            self.agent_states.pop(agent_name, None)
        elif agent_state is not None:
            self.agent_states[agent_name] = agent_state.model_dump(mode="json")
            self.end_of_agents[agent_name] = False
        else:
            self.agent_states.pop(agent_name, None)
            self.end_of_agents.pop(agent_name, None)

    def reset_sub_agent_states(self, agent_name: str) -> None:
        """Forget the recorded progress of every agent below ``agent_name`` (e.g. per loop)."""
        agent = self.agent.find_agent(agent_name)
        if agent is None:
            return
        for sub_agent in agent.sub_agents:
            self.set_agent_state(sub_agent.name)
            self.reset_sub_agent_states(sub_agent.name)

    def populate_invocation_agent_states(self) -> None:
        """Fill ``agent_states`` and ``end_of_agents`` from this invocation's committed events.

        An event's ``end_of_agent`` marks its author finished; an ``agent_state`` records
        where it was; an agent that answered with content but recorded no state gets an empty
        one (it started). Called by the Runner when it continues an invocation; does nothing
        when the context records no checkpoints (google-adk's non-resumable context).
        """
        if not self.records_checkpoints:
            return
        for event in self._get_events(current_invocation=True):
            if event.actions.end_of_agent:
                self.end_of_agents[event.author] = True
                self.agent_states.pop(event.author, None)
            elif event.actions.agent_state is not None:
                self.agent_states[event.author] = dict(event.actions.agent_state)
                self.end_of_agents[event.author] = False
            elif event.author != "user" and event.content and event.author not in self.agent_states:
                self.agent_states[event.author] = {}
                self.end_of_agents[event.author] = False

    def should_pause_invocation(self, event: Event) -> bool:
        """Whether the invocation stops after ``event`` to wait for the client.

        True when the event calls a long-running tool (a call id among
        ``long_running_tool_ids``): the client answers it in a later turn, which resumes the
        invocation (google-adk's workflow sub-branches, which resume such a call inside the
        invocation, do not exist here).
        """
        waiting = event.long_running_tool_ids or set()
        return any(call.id in waiting for call in event.get_function_calls())

    def _get_events(
        self, *, current_invocation: bool = False, current_branch: bool = False
    ) -> list[Event]:
        """The session's events, of this invocation and/or of this branch only."""
        events = list(self.session.events)
        if current_invocation:
            events = [e for e in events if e.invocation_id == self.invocation_id]
        if current_branch:
            events = [e for e in events if e.branch == self.branch]
        return events

    def _find_matching_function_call(self, function_response_event: Event) -> Event | None:
        """The latest event calling the function ``function_response_event`` answers."""
        responses = function_response_event.get_function_responses()
        if not responses:
            return None
        return calling_event(self.session.events, responses[0].id or "")

    @property
    def app_name(self) -> str:
        """The session's app name."""
        return self.session.app_name

    @property
    def user_id(self) -> str:
        """The session's user id."""
        return self.session.user_id

    def increment_llm_call_count(self) -> None:
        """Count one model call.

        Raises:
            LlmCallsLimitExceededError: The count passed ``run_config.max_llm_calls``.
        """
        self._llm_calls[0] += 1
        limit = self.run_config.max_llm_calls
        if limit > 0 and self._llm_calls[0] > limit:
            raise LlmCallsLimitExceededError(
                f"The invocation exceeded max_llm_calls={limit}; raise RunConfig.max_llm_calls "
                "if the agent needs more model calls."
            )
