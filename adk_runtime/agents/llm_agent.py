"""LlmAgent (alias Agent): an agent driven by a model, with tools and sub-agents."""

from __future__ import annotations

import functools
import warnings
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from contextlib import aclosing
from typing import Any, ClassVar, Literal, TypeAlias

from google.genai import types
from pydantic import BaseModel, Field, PrivateAttr, field_validator, model_validator

from adk_runtime import _callbacks
from adk_runtime.agents._auth import check_credential_answers
from adk_runtime.agents._confirmation import check_confirmation_answers
from adk_runtime.agents._functions import (
    AfterToolCallback,
    BeforeToolCallback,
    OnToolErrorCallback,
)
from adk_runtime.agents._instructions import canonical_instruction, static_parts
from adk_runtime.agents._resume import run_llm_agent
from adk_runtime.agents._structured_output import save_output
from adk_runtime.agents._toolsets import resolve_tools
from adk_runtime.agents.llm_agent_config import LlmAgentConfig
from adk_runtime.code_executors.base_code_executor import BaseCodeExecutor
from adk_runtime.core._adapters import as_tools
from adk_runtime.core._instructions import InstructionProvider
from adk_runtime.core._model_config import (
    check_generate_content_config,
    misplaced_config_fields,
)
from adk_runtime.core.base_agent import BaseAgent
from adk_runtime.core.base_agent_config import BaseAgentConfig
from adk_runtime.core.base_tool import BaseTool
from adk_runtime.core.base_toolset import BaseToolset
from adk_runtime.core.callback_context import CallbackContext
from adk_runtime.core.invocation_context import InvocationContext
from adk_runtime.core.readonly_context import ReadonlyContext
from adk_runtime.errors import UnsupportedFeatureError
from adk_runtime.events import Event
from adk_runtime.models.base_llm import BaseLlm
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.models.llm_response import LlmResponse
from adk_runtime.models.registry import LLMRegistry
from adk_runtime.planners.base_planner import BasePlanner
from adk_runtime.tools.function_tool import FunctionTool
from adk_runtime.tools.google_search_tool import GoogleSearchTool
from adk_runtime.tools.transfer_to_agent_tool import NAME as TRANSFER_TOOL_NAME
from adk_runtime.tools.transfer_to_agent_tool import TransferToAgentTool
from adk_runtime.utils._agent_mode import DELEGATED_TASK_MODES, LlmAgentMode

__all__ = [
    "AfterModelCallback",
    "AfterToolCallback",
    "Agent",
    "BeforeModelCallback",
    "BeforeToolCallback",
    "LlmAgent",
    "OnModelErrorCallback",
    "OnToolErrorCallback",
    "ToolUnion",
]

DEFAULT_MODEL = "gemini-3.5-flash"
DEFAULT_LIVE_MODEL = "gemini-live-2.5-flash-native-audio"

ToolUnion: TypeAlias = BaseTool | BaseToolset | Callable[..., Any]
_BeforeModel: TypeAlias = Callable[
    [CallbackContext, LlmRequest], Awaitable[LlmResponse | None] | LlmResponse | None
]
_AfterModel: TypeAlias = Callable[
    [CallbackContext, LlmResponse], Awaitable[LlmResponse | None] | LlmResponse | None
]
_OnModelError: TypeAlias = Callable[
    [CallbackContext, LlmRequest, Exception], Awaitable[LlmResponse | None] | LlmResponse | None
]
BeforeModelCallback: TypeAlias = _BeforeModel | Sequence[_BeforeModel]
AfterModelCallback: TypeAlias = _AfterModel | Sequence[_AfterModel]
OnModelErrorCallback: TypeAlias = _OnModelError | Sequence[_OnModelError]


class LlmAgent(BaseAgent):
    """An agent that asks a model what to do, runs the tools it calls, and answers.

    Each step builds a request from the session history, calls the model and yields the
    model-response event; if the model called functions, the tools run concurrently and
    one function-response event carries all results and the merged ``state_delta`` /
    ``artifact_delta`` of their contexts. Steps repeat until a final response.

    Attributes:
        model: A model name resolved through ``LLMRegistry`` (e.g. ``"gemini-2.5-flash"``)
            or a ``BaseLlm``; empty inherits the nearest ancestor LLM agent's model.
        instruction: The system instruction: a string with ``{key}`` / ``{app:key}`` /
            ``{user:key}`` / ``{temp:key}`` / ``{key?}`` placeholders filled from the state,
            or a callable of the ``ReadonlyContext`` (used verbatim). With a
            ``static_instruction`` it is sent as content before the latest user turn instead.
        global_instruction: Read on the root agent only: comes first in the system
            instruction of every LLM agent of the tree (same forms as ``instruction``).
        static_instruction: Text (or a ``Part``, ``Content``, uploaded ``File`` or list of
            them) sent verbatim as the system instruction, never templated: the part of the
            prompt that stays the same from step to step (parts other than text go as
            content before the latest user turn).
        tools: Tools, plain functions (wrapped as ``FunctionTool``), workflow nodes (a
            ``Workflow``, a function node...: wrapped as a ``NodeTool``) and toolsets
            (resolved for each invocation, e.g. ``McpToolset``).
        generate_content_config: Generation settings (the instruction and tool declarations
            are added to a copy). Tools, a system instruction or a response schema set there
            are rejected: they have their own fields.
        include_contents: ``"default"`` sends the history; ``"none"`` only the current turn.
        input_schema: The arguments of this agent when it is used as a tool (``AgentTool``).
        output_schema: The structure of the final answer (a pydantic model, ``list[Model]``,
            another type, a JSON-schema dict or a ``types.Schema``): without tools it is the
            request's response schema; with tools the model answers through
            ``set_model_response``. The answer is validated; ``output_key`` stores the parsed
            value (a dict for a model).
        output_key: Store the final response's text in this state key (on the final event).
        planner: A ``BasePlanner`` (``BuiltInPlanner`` for the model's thinking,
            ``PlanReActPlanner`` for tagged plans) applied to every step.
        code_executor: ``BuiltInCodeExecutor`` (Gemini runs the code) or an executor that
            runs fenced code blocks of the model's answers (``UnsafeLocalCodeExecutor``, by
            explicit opt-in only).
        disallow_transfer_to_parent: The model may not hand back to the parent agent, and the
            next turn does not continue with this agent.
        disallow_transfer_to_peers: The model may not hand over to sibling agents.
        mode: How the agent's parent reaches it. ``"chat"`` (or None): by
            ``transfer_to_agent``. ``"task"``: the parent's model calls it as a tool named
            after it (arguments: its ``input_schema``, else ``request``); it works on that
            task in its own scope of the session, may ask the user over several turns (their
            replies go to it), and ends by calling ``finish_task`` with a result following
            its ``output_schema`` (else ``{"result": "<summary>"}``), which answers the
            parent's call. ``"single_turn"``: called the same way, it answers from the
            arguments alone, in one run; its final answer (parsed by ``output_schema``) is
            the result. Agents in these two modes are not transfer targets and transfer to
            no one. See ``docs/how-to/agents/tasks.md``.
        parallel_worker: As a workflow node, run the agent once per item of a list input,
            concurrently (each item its own run and branch); the output is the list of
            their answers, in the items' order (``node(..., parallel_worker=True)``).
        before_model_callback: ``(callback_context, llm_request)``; a returned
            ``LlmResponse`` replaces the model call.
        after_model_callback: ``(callback_context, llm_response)``; a returned
            ``LlmResponse`` replaces the model's response.
        before_tool_callback: ``(tool, args, tool_context)``; a returned dict replaces the
            tool call.
        after_tool_callback: ``(tool, args, tool_context, tool_response)``; a returned dict
            replaces the tool's response.
        on_model_error_callback: ``(callback_context, llm_request, error)`` when the model
            call raises; a returned ``LlmResponse`` is used instead, else the error propagates.
        on_tool_error_callback: ``(tool, args, tool_context, error)`` when the tool raises;
            a returned dict is the response, else the error is answered as usual.
    """

    config_type: ClassVar[type[BaseAgentConfig]] = LlmAgentConfig
    resumes_itself: ClassVar[bool] = True

    model: str | BaseLlm = ""
    instruction: str | InstructionProvider = ""
    global_instruction: str | InstructionProvider = ""
    static_instruction: Any = None
    tools: list[ToolUnion] = Field(default_factory=list)
    generate_content_config: types.GenerateContentConfig | None = None
    include_contents: Literal["default", "none"] = "default"
    input_schema: type[BaseModel] | None = None
    output_schema: Any = None
    output_key: str | None = None
    planner: BasePlanner | None = None
    code_executor: BaseCodeExecutor | None = None
    disallow_transfer_to_parent: bool = False
    disallow_transfer_to_peers: bool = False
    mode: LlmAgentMode | None = None
    parallel_worker: bool | None = None
    before_model_callback: BeforeModelCallback | None = None
    after_model_callback: AfterModelCallback | None = None
    before_tool_callback: BeforeToolCallback | None = None
    after_tool_callback: AfterToolCallback | None = None
    on_model_error_callback: OnModelErrorCallback | None = None
    on_tool_error_callback: OnToolErrorCallback | None = None

    DEFAULT_MODEL: ClassVar[str] = DEFAULT_MODEL
    """The model of agents that name none, until ``set_default_model`` changes it."""
    DEFAULT_LIVE_MODEL: ClassVar[str] = DEFAULT_LIVE_MODEL
    """The live-mode counterpart of ``DEFAULT_MODEL`` (``canonical_live_model``)."""

    _default_model: ClassVar[str | BaseLlm] = DEFAULT_MODEL
    _default_live_model: ClassVar[str | BaseLlm] = DEFAULT_LIVE_MODEL
    _llm: BaseLlm | None = PrivateAttr(default=None)
    _wrapped: dict[int, tuple[Any, BaseTool]] = PrivateAttr(default_factory=dict)
    _task_tool_cache: dict[int, tuple[Any, BaseTool]] = PrivateAttr(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _no_config_fields(cls, data: Any) -> Any:
        misplaced_config_fields(data, set(cls.model_fields))
        return data

    @field_validator("tools", mode="before")
    @classmethod
    def _nodes_as_tools(cls, value: Any) -> Any:
        """A workflow node among the tools is offered as a ``NodeTool`` (google-adk 2)."""
        return as_tools(value)  # the workflow package registers the conversion

    @field_validator("static_instruction")
    @classmethod
    def _check_static_instruction(cls, value: Any) -> Any:
        if value is not None:
            static_parts(value)  # raises InputValidationError (a ValueError) for other types
        return value

    @field_validator("generate_content_config")
    @classmethod
    def validate_generate_content_config(
        cls, config: types.GenerateContentConfig | None
    ) -> types.GenerateContentConfig | None:
        """Reject settings that have an LlmAgent field of their own (``ValueError``)."""
        return check_generate_content_config(config)

    @model_validator(mode="after")
    def _warn_two_thinking_configs(self) -> LlmAgent:
        config = self.generate_content_config
        planned = getattr(self.planner, "thinking_config", None)
        if planned is not None and config is not None and config.thinking_config is not None:
            warnings.warn(
                f"LlmAgent {self.name!r} sets thinking_config twice, in generate_content_config "
                "and in its planner; every request uses the planner's.",
                UserWarning,
                stacklevel=2,
            )
        return self

    @classmethod
    def set_default_model(cls, model: str | BaseLlm) -> None:
        """Set the model of agents that name none and have no LLM ancestor (process-wide).

        Raises:
            TypeError: ``model`` is neither a string nor a ``BaseLlm``.
            ValueError: ``model`` is an empty string.
        """
        LlmAgent._default_model = _checked_default(model, "model")

    @classmethod
    def set_default_live_model(cls, model: str | BaseLlm) -> None:
        """Set ``canonical_live_model``'s fallback, as ``set_default_model`` does for models.

        Raises:
            TypeError: ``model`` is neither a string nor a ``BaseLlm``.
            ValueError: ``model`` is an empty string.
        """
        LlmAgent._default_live_model = _checked_default(model, "live model")

    async def canonical_instruction(self, ctx: ReadonlyContext) -> tuple[str, bool]:
        """Return ``(instruction, bypass_state_injection)``.

        A string comes back as written (placeholders not filled yet) with False; a
        provider's result with True (it is used verbatim).
        """
        return await canonical_instruction(self.instruction, ctx)

    async def canonical_global_instruction(self, ctx: ReadonlyContext) -> tuple[str, bool]:
        """``global_instruction`` resolved as ``canonical_instruction`` resolves ``instruction``."""
        return await canonical_instruction(self.global_instruction, ctx)

    @property
    def canonical_model(self) -> BaseLlm:
        """The model this agent calls (resolved once)."""
        if isinstance(self.model, BaseLlm):
            return self.model
        if self._llm is None or self._llm.model != (self.model or self._llm.model):
            self._llm = self._resolve_model()
        return self._llm

    async def canonical_model_async(self, ctx: ReadonlyContext) -> BaseLlm:
        """``canonical_model``, as google-adk's flow asks for it (the same for every turn)."""
        return self.canonical_model

    @property
    def canonical_before_model_callbacks(self) -> list[Any]:
        """``before_model_callback`` as a list (google-adk's name)."""
        return _callbacks.as_list(self.before_model_callback)

    @property
    def canonical_after_model_callbacks(self) -> list[Any]:
        """``after_model_callback`` as a list (google-adk's name)."""
        return _callbacks.as_list(self.after_model_callback)

    @property
    def canonical_before_tool_callbacks(self) -> list[Any]:
        """``before_tool_callback`` as a list (google-adk's name)."""
        return _callbacks.as_list(self.before_tool_callback)

    @property
    def canonical_after_tool_callbacks(self) -> list[Any]:
        """``after_tool_callback`` as a list (google-adk's name)."""
        return _callbacks.as_list(self.after_tool_callback)

    @property
    def canonical_on_model_error_callbacks(self) -> list[Any]:
        """``on_model_error_callback`` as a list (google-adk's name)."""
        return _callbacks.as_list(self.on_model_error_callback)

    @property
    def canonical_on_tool_error_callbacks(self) -> list[Any]:
        """``on_tool_error_callback`` as a list (google-adk's name)."""
        return _callbacks.as_list(self.on_tool_error_callback)

    @property
    def canonical_live_model(self) -> BaseLlm:
        """The model a live session would use: as ``canonical_model``, with the live default.

        adk_runtime runs no Live API sessions (``Runner.run_live`` refuses); this resolves
        the name for code that asks.
        """
        if isinstance(self.model, BaseLlm):
            return self.model
        if self.model:
            return self.canonical_model
        ancestor = self._llm_ancestor()
        if ancestor is not None:
            return ancestor.canonical_live_model
        default = LlmAgent._default_live_model
        return default if isinstance(default, BaseLlm) else LLMRegistry.new_llm(default)

    def _llm_ancestor(self) -> LlmAgent | None:
        ancestor = self.parent_agent
        while ancestor is not None and not isinstance(ancestor, LlmAgent):
            ancestor = ancestor.parent_agent
        return ancestor

    def _resolve_model(self) -> BaseLlm:
        if self.model:
            assert isinstance(self.model, str)
            return LLMRegistry.new_llm(self.model)
        ancestor = self._llm_ancestor()
        if ancestor is not None:
            return ancestor.canonical_model
        default = LlmAgent._default_model
        return default if isinstance(default, BaseLlm) else LLMRegistry.new_llm(default)

    async def canonical_tools(self, ctx: ReadonlyContext | None = None) -> list[BaseTool]:
        """The tools offered to the model in ``ctx``.

        Functions are wrapped as ``FunctionTool``, toolsets expanded (with ``ctx``), and
        ``transfer_to_agent`` is added when the agent may transfer, unless ``tools`` holds a
        tool of that name already (a ``TransferToAgentTool`` with ``include_transfer_reason``,
        or a function of the application's own): that one is offered instead. A
        ``GoogleSearchTool(bypass_multi_tools_limit=True)`` among other tools (or beside
        transfer targets) becomes a ``GoogleSearchAgentTool``: a sub-agent runs the search.
        """
        targets = self._transfer_targets()
        shared = len(self.tools) > 1 or bool(targets)
        tools = await resolve_tools(self.tools, ctx, lambda t: self._as_tool(t, shared=shared))
        if targets and not any(tool.name == TRANSFER_TOOL_NAME for tool in tools):
            names = [agent.name for agent in targets]
            about = {agent.name: agent.description for agent in targets}
            tools.append(TransferToAgentTool(names, descriptions=about))
        return tools + self._task_tools({tool.name for tool in tools})

    def _task_tools(self, taken: set[str]) -> list[BaseTool]:
        """``finish_task`` (task mode) and a tool per delegated sub-agent (``mode``).

        One instance each per agent, so that the tools compare equal from step to step.
        """
        from adk_runtime.agents.llm.task._finish_task_tool import FinishTaskTool
        from adk_runtime.tools.agent_tool import _SingleTurnAgentTool, _TaskAgentTool

        wanted: list[tuple[Any, Callable[[], BaseTool]]] = []
        if self.mode == "task":
            wanted.append((self, lambda: FinishTaskTool(self)))
        for sub in self.sub_agents:
            mode = getattr(sub, "mode", None)
            if mode == "task":
                wanted.append((sub, functools.partial(_TaskAgentTool, sub)))
            elif mode == "single_turn":
                wanted.append((sub, functools.partial(_SingleTurnAgentTool, sub)))
        made: list[BaseTool] = []
        for owner, make in wanted:
            cached = self._task_tool_cache.get(id(owner))
            if cached is None or cached[0] is not owner:
                cached = (owner, make())
                self._task_tool_cache[id(owner)] = cached
            if cached[1].name not in taken:
                made.append(cached[1])
        return made

    def _as_tool(self, tool: BaseTool | Callable[..., Any], *, shared: bool = False) -> BaseTool:
        if isinstance(tool, GoogleSearchTool) and tool.bypass_multi_tools_limit and shared:
            # Declared next to functions it would fail on Gemini < 3: a sub-agent searches.
            from adk_runtime.agents._google_search_agent import (
                GoogleSearchAgentTool,
                create_google_search_agent,
            )

            return GoogleSearchAgentTool(
                create_google_search_agent(tool.model or self.canonical_model)
            )
        if isinstance(tool, BaseTool):
            return tool
        cached = self._wrapped.get(id(tool))
        if cached is None or cached[0] is not tool:
            cached = (tool, FunctionTool(tool))
            self._wrapped[id(tool)] = cached
        return cached[1]

    def _transfer_targets(self) -> list[BaseAgent]:
        """The agents the model may hand over to: none from a delegated agent (``mode``)."""
        if self.mode in DELEGATED_TASK_MODES:
            return []
        targets = list(self.sub_agents)
        parent = self.parent_agent
        if isinstance(parent, LlmAgent):
            if not self.disallow_transfer_to_parent:
                targets.append(parent)
            if not self.disallow_transfer_to_peers:
                targets.extend(peer for peer in parent.sub_agents if peer is not self)
        return [a for a in targets if getattr(a, "mode", None) not in DELEGATED_TASK_MODES]

    def can_transfer_to_parent(self) -> bool:
        """True unless ``disallow_transfer_to_parent``: the next turn may continue here."""
        return not self.disallow_transfer_to_parent

    async def _check_client_answers(
        self, ctx: InvocationContext, message: Event, answered: list[str]
    ) -> None:
        """Check each confirmation and credential answer against this agent's stored request."""
        await check_confirmation_answers(self, ctx, message)
        check_credential_answers(self.name, ctx, message)

    def _ends_run_with(self, ctx: InvocationContext, event: Event) -> bool:
        """True for this agent's final response when nothing can follow it in the run.

        Nothing follows when no after-agent callback (its own or a plugin's) may add an
        event and the app is not resumable (no ``end_of_agent`` checkpoint follows).
        """
        return (
            event.author == self.name
            and event.is_final_response()
            and not event.actions.transfer_to_agent
            and not ctx.is_resumable
            and not self.canonical_after_agent_callbacks
            and not ctx.plugin_manager.overrides("after_agent_callback")
        )

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        # The flow, or its continuation when the invocation is being resumed.
        async with aclosing(run_llm_agent(self, ctx)) as events:
            async for event in events:
                yield event

    def _run_live_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        raise UnsupportedFeatureError(
            f"LlmAgent {self.name!r} cannot run live: google-adk's Live API (audio/video "
            "streaming) is not implemented here; use run_async (RunConfig(streaming_mode="
            "StreamingMode.SSE) streams text)."
        )

    def __get_agent_to_run(self, agent_name: str) -> BaseAgent:
        """The agent of this tree called ``agent_name`` (a transfer's target).

        Raises:
            ValueError: No agent of the tree has that name (the message lists them all).
        """
        found = self.root_agent.find_agent(agent_name)
        if found is not None:
            return found
        raise ValueError(
            f"Agent {agent_name!r} not found in the agent tree of {self.root_agent.name!r}.\n"
            f"Available agents: {', '.join(self._get_available_agent_names())}\n"
            "Possible causes: the name is misspelled (names are case-sensitive), or the agent "
            "was never added to the tree as a sub-agent.\n"
            "Suggested fixes: check the name against the list above; give the agent as a "
            "sub-agent of one of them."
        )

    def _get_available_agent_names(self) -> list[str]:
        """Every agent name of this agent's tree, from its root down (depth first)."""
        names: list[str] = []
        pending: list[BaseAgent] = [self.root_agent]
        while pending:
            agent = pending.pop()
            names.append(agent.name)
            pending.extend(reversed(agent.sub_agents))
        return names

    async def _handle_agent_callbacks(
        self,
        ctx: InvocationContext,
        callbacks: Any,
        *,
        before: bool,
    ) -> Event | None:
        """The agent callbacks' event, its answer stored under ``output_key``.

        Content a callback answers with counts like a model's answer (a
        ``before_agent_callback`` serving a cached answer, say).
        """
        event = await super()._handle_agent_callbacks(ctx, callbacks, before=before)
        if event is not None:
            save_output(self, event)
        return event

    def __maybe_save_output_to_state(self, event: Event) -> None:
        """Store ``event``'s answer under ``output_key`` (google-adk's name for this step)."""
        save_output(self, event)


def _checked_default(model: object, what: str) -> str | BaseLlm:
    if not isinstance(model, (str, BaseLlm)):
        raise TypeError(
            f"The default {what} must be a str or a BaseLlm, got {type(model).__name__}."
        )
    if isinstance(model, str) and not model:
        raise ValueError(f"The default {what} must be a non-empty string or a BaseLlm.")
    return model


Agent = LlmAgent
