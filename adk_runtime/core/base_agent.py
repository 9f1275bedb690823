"""BaseAgent: the unit the Runner drives; subclasses implement ``_run_async_impl``."""

from __future__ import annotations

import inspect
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping, Sequence
from contextlib import aclosing
from typing import Any, ClassVar, TypeAlias, TypeVar

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from typing_extensions import Self

from adk_runtime import _callbacks, telemetry
from adk_runtime._foreign import refuse_google_adk_in
from adk_runtime.core import _config
from adk_runtime.core.base_agent_config import BaseAgentConfig
from adk_runtime.core.callback_context import CallbackContext
from adk_runtime.core.invocation_context import InvocationContext
from adk_runtime.errors import InputValidationError
from adk_runtime.events import Event, EventActions

__all__ = [
    "AfterAgentCallback",
    "AgentState",
    "BaseAgent",
    "BaseAgentConfig",
    "BaseAgentState",
    "BeforeAgentCallback",
    "SelfAgent",
]

logger = logging.getLogger(__name__)

_AgentCallback: TypeAlias = Callable[
    [CallbackContext], Awaitable[types.Content | None] | types.Content | None
]
BeforeAgentCallback: TypeAlias = _AgentCallback | Sequence[_AgentCallback]
AfterAgentCallback: TypeAlias = _AgentCallback | Sequence[_AgentCallback]


class BaseAgentState(BaseModel):
    """The progress a workflow agent records in its checkpoint events (``actions.agent_state``).

    Subclasses name the fields (``LoopAgentState``, ``SequentialAgentState``); the stored form
    is the model's dict, the same as google-adk's, so a checkpoint written by either runtime
    reads back in the other.
    """

    model_config = ConfigDict(extra="forbid")


AgentState = TypeVar("AgentState", bound=BaseAgentState)
"""A :class:`BaseAgentState` subclass (google-adk's type variable)."""

SelfAgent = TypeVar("SelfAgent", bound="BaseAgent")
"""The agent class a ``from_config`` builds (google-adk's type variable)."""


class BaseAgent(BaseModel):
    """An agent: yields events for the Runner to commit.

    Attributes:
        name: A Python identifier, unique in the agent tree, and not ``"user"``.
        description: What the agent does (other agents read it to decide on transfers).
        parent_agent: Set when the agent is added as a sub-agent.
        sub_agents: Child agents.
        before_agent_callback: Called with ``callback_context`` before the agent runs (after
            the Runner's plugins, see :mod:`adk_runtime.plugins`). The first one that returns
            a ``Content`` replaces the run: its content is yielded and the invocation ends.
            State written by callbacks rides on the yielded event.
        after_agent_callback: Called after the run; a returned ``Content`` is yielded as a
            last event; state written rides on that event.
        state_schema: A pydantic model declaring the session-state keys this agent (and its
            sub-agents, unless they declare their own) writes, and their types: every
            ``state[key] = value`` in its callbacks and tools is checked, and a key it does
            not declare or a value that does not fit raises ``StateSchemaError`` with nothing
            written. Scoped keys (``app:``, ``user:``, ``temp:``) are not checked.
    """

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    name: str
    description: str = ""
    parent_agent: BaseAgent | None = Field(default=None, exclude=True, repr=False)
    sub_agents: list[BaseAgent] = Field(default_factory=list)
    before_agent_callback: BeforeAgentCallback | None = None
    after_agent_callback: AfterAgentCallback | None = None
    state_schema: type[BaseModel] | None = None

    config_type: ClassVar[type[BaseAgentConfig]] = BaseAgentConfig
    """The model that validates this class's YAML files (``config_agent_utils``).

    A subclass with keys of its own declares them as fields, or names a
    ``BaseAgentConfig`` subclass here."""

    resumes_itself: ClassVar[bool] = False
    """True for agents that continue a resumed invocation from their own committed events
    (``LlmAgent`` and the workflow agents, see :mod:`adk_runtime.agents._resume`). Any other
    agent that already gave its answer in a resumed invocation is not run again."""

    _resumed_by_inner_answers: ClassVar[bool] = False
    """True for agents that run their sub-agents as steps (the workflow agents): when the user
    answers a call one of them made, the Runner resumes this agent from the invocation's
    committed events, so the steps after the caller run too."""

    def effective_state_schema(self) -> type[BaseModel] | None:
        """The ``state_schema`` checking this agent's writes: its own, or its nearest ancestor's."""
        agent: BaseAgent | None = self
        while agent is not None:
            if agent.state_schema is not None:
                return agent.state_schema
            agent = agent.parent_agent
        return None

    @model_validator(mode="before")
    @classmethod
    def _refuse_google_adk(cls, data: Any) -> Any:
        # A google-adk agent, tool or model among the arguments: one line saying what to
        # change (adk_runtime._foreign), not a pydantic error.
        refuse_google_adk_in(cls.__name__, data)
        return data

    @field_validator("name")
    @classmethod
    def _check_name(cls, value: str) -> str:
        if not value.isidentifier():
            raise ValueError(f"Agent name {value!r} must be a Python identifier.")
        if value == "user":
            raise ValueError(
                "Agent name cannot be `user`: it is reserved for the end user's events."
            )
        return value

    def model_post_init(self, context: Any, /) -> None:
        """Point each sub-agent at this agent as its parent (and warn of repeated names)."""
        names = [sub_agent.name for sub_agent in self.sub_agents]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            logger.warning(
                "Agent %r has sub-agents with the same name (%s): events, transfers and "
                "resumed invocations find agents by name, so only the first of each is reached.",
                self.name,
                ", ".join(f"`{name}`" for name in repeated),
            )
        for sub_agent in self.sub_agents:
            if sub_agent.parent_agent is not None and sub_agent.parent_agent is not self:
                raise ValueError(
                    f"Agent {sub_agent.name!r} already has parent "
                    f"{sub_agent.parent_agent.name!r}; an agent can have only one parent."
                )
            sub_agent.parent_agent = self

    def clone(self, update: Mapping[str, Any] | None = None) -> Self:
        """Return a copy of this agent (and, unless ``update`` gives them, of its sub-agents).

        The copy has no parent; lists are copied, not shared; a callback that is a method of
        this agent is bound to the copy instead.

        Args:
            update: New values for fields of the copy, e.g. ``{"name": "twin"}``.

        Raises:
            ValueError: ``update`` names ``parent_agent`` or a field the class does not have.
        """
        update = dict(update or {})
        if "parent_agent" in update:
            raise ValueError(
                "Cannot update `parent_agent` field in clone(): an agent gets its parent when "
                "it is given as a sub-agent."
            )
        unknown = sorted(set(update) - set(type(self).model_fields))
        if unknown:
            raise ValueError(
                f"Cannot update nonexistent fields of {type(self).__name__}: {unknown}."
            )
        copy = self.model_copy(update=update)
        for field_name in type(copy).model_fields:
            if field_name in ("sub_agents", "parent_agent") or field_name in update:
                continue
            setattr(copy, field_name, _rebound(getattr(copy, field_name), self, copy))
        if "sub_agents" not in update:
            copy.sub_agents = [sub_agent.clone() for sub_agent in self.sub_agents]
        for sub_agent in copy.sub_agents:
            sub_agent.parent_agent = copy
        copy.parent_agent = None
        return copy

    @classmethod
    def from_config(cls, config: BaseModel | dict[str, Any], config_abs_path: str) -> Self:
        """Build an agent of this class from a parsed YAML config.

        Keys map onto fields (``sub_agents`` references, ``tools`` entries,
        ``<field>_callbacks`` and ``<field>_code`` dotted paths are resolved, which imports
        and runs the code they name); see :mod:`adk_runtime.agents.config_agent_utils`,
        whose ``from_config(path)`` is the usual entry point.

        Args:
            config: The config model (``config_type``) or the mapping read from the file.
            config_abs_path: The file's absolute path (sub-agent paths are relative to it).

        Raises:
            AgentConfigError: A key or reference is invalid (a ``ValueError``).
        """
        agent: Self = _config.loader().build_agent(cls, config, config_abs_path)
        return agent

    @classmethod
    def _parse_config(
        cls, config: Any, config_abs_path: str, kwargs: dict[str, Any]
    ) -> dict[str, Any]:
        """Adjust the constructor arguments built from ``config`` (a hook for subclasses)."""
        return kwargs

    @property
    def canonical_before_agent_callbacks(self) -> list[Any]:
        """``before_agent_callback`` as a list (google-adk's name)."""
        return _callbacks.as_list(self.before_agent_callback)

    @property
    def canonical_after_agent_callbacks(self) -> list[Any]:
        """``after_agent_callback`` as a list (google-adk's name)."""
        return _callbacks.as_list(self.after_agent_callback)

    @property
    def root_agent(self) -> BaseAgent:
        """The top of this agent's tree."""
        agent = self
        while agent.parent_agent is not None:
            agent = agent.parent_agent
        return agent

    def find_agent(self, name: str) -> BaseAgent | None:
        """Return this agent or the descendant called ``name``."""
        if self.name == name:
            return self
        return self.find_sub_agent(name)

    def find_sub_agent(self, name: str) -> BaseAgent | None:
        """Return the descendant called ``name``."""
        for sub_agent in self.sub_agents:
            found = sub_agent.find_agent(name)
            if found is not None:
                return found
        return None

    def can_transfer_to_parent(self) -> bool:
        """Whether a conversation handed to this agent may continue with it on the next turn.

        Only LLM agents that allow transfer back to their parent answer True; see
        ``Runner`` for how the next turn's agent is chosen.
        """
        return False

    def _question_awaiting_reply(self, events: list[Event]) -> Event | None:
        """The stored question a plain user message to this root agent answers, if any.

        None here; a workflow run as the root answers with its task node's open question, so
        the Runner routes the reply to that node.
        """
        return None

    def _ends_run_with(self, ctx: InvocationContext, event: Event) -> bool:
        """Whether ``event``, which this agent's run just yielded, is its run's last event.

        The Runner commits the event it is told is the last together with the claim's release
        (one round trip fewer per turn). None is here (False): the Runner releases after the
        run ends. An agent that says True and yields again still works: its next event
        commits while no other turn has claimed the session (else
        :class:`~adk_runtime.errors.ClaimLostError`), so answer True only when certain.
        """
        return False

    async def run_async(self, parent_context: InvocationContext) -> AsyncGenerator[Event, None]:
        """Run the agent: before callbacks, ``_run_async_impl``, after callbacks.

        Yields:
            The events of the run, for the Runner to commit.
        """
        ctx = self._create_invocation_context(parent_context)
        if ctx._resume is not None and not self.resumes_itself and _answered(self, ctx):
            return
        with telemetry.span(f"invoke_agent {self.name}", lambda: _agent_attributes(self, ctx)):
            async with aclosing(self._run_with_callbacks(ctx, self._run_async_impl)) as events:
                async for event in events:
                    yield event

    async def run_live(self, parent_context: InvocationContext) -> AsyncGenerator[Event, None]:
        """google-adk's live (audio/video) entry point: callbacks around ``_run_live_impl``.

        adk_runtime runs no Live API sessions: an ``LlmAgent``'s live run raises
        ``UnsupportedFeatureError``. A custom agent that implements ``_run_live_impl`` runs it
        here, with the same callbacks as ``run_async``.

        Yields:
            The events of the live run.
        """
        ctx = self._create_invocation_context(parent_context)
        with telemetry.span(f"invoke_agent {self.name}", lambda: _agent_attributes(self, ctx)):
            async with aclosing(self._run_with_callbacks(ctx, self._run_live_impl)) as events:
                async for event in events:
                    yield event

    async def _run_with_callbacks(
        self,
        ctx: InvocationContext,
        impl: Callable[[InvocationContext], AsyncGenerator[Event, None]],
    ) -> AsyncGenerator[Event, None]:
        try:
            async with aclosing(self._run_steps(ctx, impl)) as events:
                async for event in events:
                    yield event
        except Exception as exc:  # the plugins are told; the error goes on
            await ctx.plugin_manager.run_on_agent_error_callback(
                agent=self, callback_context=CallbackContext(ctx), error=exc
            )
            raise

    async def _run_steps(
        self,
        ctx: InvocationContext,
        impl: Callable[[InvocationContext], AsyncGenerator[Event, None]],
    ) -> AsyncGenerator[Event, None]:
        event = await self._handle_agent_callbacks(ctx, self.before_agent_callback, before=True)
        if event is not None:
            yield event
        if _ended(ctx):
            return
        async with aclosing(impl(ctx)) as events:
            async for event in events:
                yield event
        if _ended(ctx):
            return
        event = await self._handle_agent_callbacks(ctx, self.after_agent_callback, before=False)
        if event is not None:
            yield event

    def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        """Produce the agent's events; subclasses implement this as an async generator."""
        raise NotImplementedError(f"{type(self).__name__} must implement _run_async_impl.")

    def _run_live_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        """Produce the agent's events of a live run (only custom agents implement it here)."""
        raise NotImplementedError(f"_run_live_impl is not implemented for {type(self).__name__}.")

    def _check_client_message(self, ctx: InvocationContext, message: Event) -> None:
        """Refuse, before it is stored, a message to this agent it could not take.

        The Runner asks the agent it will run (none here: a workflow node's agent checks
        how the message answers its calls).

        Raises:
            InputValidationError: The message is refused; nothing is written.
        """

    async def _check_client_answers(
        self, ctx: InvocationContext, message: Event, answered: list[str]
    ) -> None:
        """Refuse, before they are stored, answers to the runtime's calls this agent never made.

        ``answered`` names the calls answered (confirmations, credentials); an agent that
        makes such calls (``LlmAgent``, a workflow node's agent) checks each answer against
        its stored request instead.

        Raises:
            InputValidationError: Always here: this agent asked for none.
        """
        raise InputValidationError(
            f"The message answers {answered} but agent {self.name!r}, "
            "which would receive it, asked for none."
        )

    def _load_agent_state(
        self, ctx: InvocationContext, state_type: type[AgentState]
    ) -> AgentState | None:
        """This agent's recorded state in the invocation (``ctx.agent_states``), or None.

        For custom agents that resume themselves the way google-adk's do: a resumed
        invocation's states are filled in from its committed events before it runs.
        """
        raw = ctx.agent_states.get(self.name)
        return None if raw is None else state_type.model_validate(raw)

    def _create_agent_state_event(self, ctx: InvocationContext) -> Event:
        """An event carrying this agent's recorded state or end (see ``ctx.set_agent_state``).

        Content-less: it is committed like any event and never reaches a model.
        """
        actions = EventActions()
        state = ctx.agent_states.get(self.name)
        if state is not None:
            actions.agent_state = dict(state)
        if ctx.end_of_agents.get(self.name):
            actions.end_of_agent = True
        return Event(
            invocation_id=ctx.invocation_id, author=self.name, branch=ctx.branch, actions=actions
        )

    def _create_invocation_context(self, parent_context: InvocationContext) -> InvocationContext:
        return parent_context.model_copy(update={"agent": self})

    async def _handle_agent_callbacks(
        self,
        ctx: InvocationContext,
        callbacks: BeforeAgentCallback | None,
        *,
        before: bool,
    ) -> Event | None:
        callback_context = CallbackContext(ctx)
        manager = ctx.plugin_manager
        hook = manager.run_before_agent_callback if before else manager.run_after_agent_callback
        # The plugins first: content from one of them skips the agent's own callbacks.
        content: types.Content | None = await _callbacks.first_answer(
            hook(agent=self, callback_context=callback_context),
            callbacks,
            callback_context=callback_context,
        )
        if content is None and not (
            callback_context.state.has_delta() or callback_context.actions.artifact_delta
        ):
            return None
        if content is not None and before:
            ctx.end_invocation = True
        return Event(
            invocation_id=ctx.invocation_id,
            author=self.name,
            branch=ctx.branch,
            content=content,
            actions=callback_context.actions,
        )


def _answered(agent: BaseAgent, ctx: InvocationContext) -> bool:
    # The resume plan (agents/_resume.py's ResumeState) knows what the invocation did.
    answered: bool = ctx._resume.answered(agent, ctx)
    return answered


def _ended(ctx: InvocationContext) -> bool:
    """Read ``end_invocation`` afresh (agents and callbacks set it while we wait)."""
    return ctx.end_invocation


# InvocationContext names BaseAgent only for type checkers (the modules would import each
# other); its model is completed here, where BaseAgent exists, whatever the import order.
InvocationContext.model_rebuild(_types_namespace={"BaseAgent": BaseAgent})


def _agent_attributes(agent: BaseAgent, ctx: InvocationContext) -> dict[str, str]:
    return {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": agent.name,
        "gen_ai.agent.description": agent.description,
        "gen_ai.conversation.id": ctx.session.id,
        "adk.invocation.id": ctx.invocation_id,
    }


def _rebound(value: Any, old: BaseAgent, new: BaseAgent) -> Any:
    """``value`` for a clone: lists copied, ``old``'s bound methods bound to ``new``."""
    if isinstance(value, list):
        return [_rebound(item, old, new) for item in value]
    if inspect.ismethod(value) and value.__self__ is old:
        return value.__func__.__get__(new)
    return value
