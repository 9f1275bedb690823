"""The LLM agent's loop: build the request, call the model, run tools, repeat until done."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, Protocol

from google.genai import types

from adk_runtime import _callbacks, telemetry
from adk_runtime.agents import (
    _auth,
    _compaction,
    _confirmation,
    _context_cache,
    _functions,
    _input_requests,
    _interactions,
    _step_hooks,
    _structured_output,
    _tasks,
    _toolsets,
)
from adk_runtime.agents._code_execution import CodeRun
from adk_runtime.agents._contents import build_contents, keeps_call_ids
from adk_runtime.agents._storable import storable_content, storable_strings
from adk_runtime.core.base_tool import BaseTool
from adk_runtime.core.callback_context import CallbackContext
from adk_runtime.core.invocation_context import InvocationContext
from adk_runtime.core.readonly_context import ReadonlyContext
from adk_runtime.core.run_config import StreamingMode
from adk_runtime.core.tool_context import ToolContext
from adk_runtime.events import Event
from adk_runtime.models._empty_reply import flag_empty_reply
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.models.llm_response import LlmResponse
from adk_runtime.tools.agent_tool import GROUNDING_STATE_KEY

if TYPE_CHECKING:
    from adk_runtime.agents.llm_agent import LlmAgent

__all__ = [
    "AGENT_NAME_LABEL",
    "StepOutcome",
    "add_tools",
    "after_function_calls",
    "apply_agent_config",
    "apply_run_config",
    "conversation",
    "event_for",
    "merged_http_options",
    "run_flow",
    "summary_due",
]

AGENT_NAME_LABEL = "adk_agent_name"
"""The model-call label naming the agent that calls (google-adk's key), unless one is set."""


async def run_flow(agent: LlmAgent, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
    """Run model steps until a final response, a transfer, a pause or the end of the invocation.

    Yields:
        Model-response events (partial chunks when streaming), function-response events and
        the events of an agent the conversation is transferred to.
    """
    for resume in (
        _auth.resume_authorized_calls,
        _confirmation.resume_confirmed_calls,
        _input_requests.resume_answered_inputs,
    ):
        async with aclosing(resume(agent, ctx)) as resumed:
            async for event in resumed:
                yield event
    delegations = _tasks.resume_delegations(agent, ctx)  # tasks still open, e.g. a reply came
    async with aclosing(delegations.events()) as delegated:
        async for event in delegated:
            yield event
    if delegations.waiting:
        return
    while not ctx.end_invocation:
        step = _Step(agent, ctx)
        async with aclosing(step.run()) as events:
            async for event in events:
                yield event
        last = step.last_event
        if step.stop or last is None or last.partial or last.is_final_response():
            return


class _Step:
    """One model call and what follows from it."""

    def __init__(self, agent: LlmAgent, ctx: InvocationContext) -> None:
        self.agent = agent
        self.ctx = ctx
        self.last_event: Event | None = None
        self.stop = False
        self.code_run = CodeRun(agent, ctx)
        self._new_model_event()

    async def run(self) -> AsyncGenerator[Event, None]:
        async with aclosing(self._before_request()) as early:
            async for early_event in early:
                yield early_event
        if self.stop:  # a toolset waits for the user's credential
            return
        request = await self._build_request()
        streamed = self.ctx.run_config.streaming_mode == StreamingMode.SSE
        async with aclosing(self._call_model(request)) as responses:
            async for response in responses:
                flag_empty_reply(response, streamed=streamed)  # as google-adk: an error event
                event = event_for(response, self.model_event)
                if event is None:
                    continue
                self.last_event = event
                if event.partial:
                    yield event
                    continue
                _step_hooks.process_response(self.agent, event, self.callback_context)
                _functions.assign_call_ids(event)
                event.long_running_tool_ids = _functions.long_running_ids(
                    event, _toolsets.request_tools(request)
                )
                self.code_run.extract(event)
                _structured_output.save_output(self.agent, event)
                self._new_model_event()  # a further complete response is a new event
                yield event
                if event.get_function_calls():
                    async with aclosing(self._after_calls(event, request)) as follow_ups:
                        async for follow_up in follow_ups:
                            yield follow_up
                elif (result := await self.code_run.execute()) is not None:
                    self.last_event = result
                    yield result

    async def _before_request(self) -> AsyncGenerator[Event, None]:
        """The toolsets' credentials, then a summary if the request outgrew the threshold.

        Stops the step when a toolset must wait for the user's credential.
        """
        async with aclosing(_auth.resolve_toolset_auth(self.agent, self.ctx)) as resolved:
            async for resolution in resolved:
                self.last_event = resolution
                yield resolution
        if self.ctx.end_invocation:
            self.stop = True
            return
        summary = await summary_due(self.agent, self.ctx)
        if summary is not None:
            yield summary

    def _new_model_event(self) -> None:
        """The event the next complete model response fills; model callbacks write on it."""
        self.model_event = Event(
            invocation_id=self.ctx.invocation_id, author=self.agent.name, branch=self.ctx.branch
        )
        self.callback_context = CallbackContext(self.ctx, event_actions=self.model_event.actions)

    async def _build_request(self) -> LlmRequest:
        agent, ctx = self.agent, self.ctx
        request = LlmRequest()
        apply_agent_config(agent, request)
        extra = await _step_hooks.add_instructions(agent, ctx, request)
        _interactions.prepare_request(agent, ctx, request)
        # A continued interaction holds the history: the current turn is enough.
        request.contents = conversation(
            agent, ctx, current_turn_only=request.previous_interaction_id is not None
        )
        apply_run_config(request, ctx)
        # The tools see the contents (load_artifacts adds to them); the output schema,
        # planner and code executor come last, as in google-adk.
        await add_tools(agent, ctx, request)
        _step_hooks.finish_request(agent, ctx, extra, request)
        _context_cache.prepare_request(ctx, agent.name, request)
        return request

    async def _call_model(self, request: LlmRequest) -> AsyncGenerator[LlmResponse, None]:
        llm = self.agent.canonical_model
        # Every model callback runs in the call's span, as in google-adk.
        with telemetry.model_span(
            llm.model,
            self.ctx.invocation_id,
            session_id=self.ctx.session.id,
            agent_name=self.agent.name,
            event_id=self.model_event.id,
        ) as call:
            answered = await self._before_model(request)
            if answered is not None:
                call.answered_by("before_model_callback", self.model_event.id, answered)
                yield answered
                return
            labels = request.config.labels or {}
            if AGENT_NAME_LABEL not in labels:  # per-agent slices of billing reports
                request.config.labels = {**labels, AGENT_NAME_LABEL: self.agent.name}
            self.ctx.increment_llm_call_count()
            stream = self.ctx.run_config.streaming_mode == StreamingMode.SSE
            call.start(request)
            async with aclosing(llm.generate_content_async(request, stream=stream)) as responses:
                while True:
                    try:
                        response = await anext(responses)
                    except StopAsyncIteration:
                        return
                    except Exception as exc:  # the model call failed: the error callbacks
                        recovered = await self._on_model_error(request, exc)
                        call.answered_by("on_model_error_callback", self.model_event.id, recovered)
                        # As in google-adk, the after-model callbacks see the recovery too.
                        yield await self._after_model(recovered)
                        return
                    if response.partial:
                        yield response
                        continue
                    call.response(response, self.model_event.id)
                    _pass_grounding_on(self.ctx, request, response)
                    yield await self._after_model(response)

    async def _model_hook(
        self, plugin_hook: Callable[..., Awaitable[Any]], callbacks: Any, **kwargs: Any
    ) -> LlmResponse | None:
        """The first answer of the plugins' ``plugin_hook``, then of the agent's ``callbacks``.

        Both get the callback context and ``kwargs`` (the model hooks share their names).
        """
        kwargs["callback_context"] = self.callback_context
        answer: LlmResponse | None = await _callbacks.first_answer(
            plugin_hook(**kwargs), callbacks, **kwargs
        )
        return answer

    async def _before_model(self, request: LlmRequest) -> LlmResponse | None:
        """The response a before-model callback gives instead of the model, if any."""
        return await self._model_hook(
            self.ctx.plugin_manager.run_before_model_callback,
            self.agent.before_model_callback,
            llm_request=request,
        )

    async def _on_model_error(self, request: LlmRequest, exc: Exception) -> LlmResponse:
        """The first response an ``on_model_error_callback`` returns for ``exc``.

        Raises:
            Exception: ``exc`` itself, when no callback returns a response.
        """
        answer = await self._model_hook(
            self.ctx.plugin_manager.run_on_model_error_callback,
            self.agent.on_model_error_callback,
            llm_request=request,
            error=exc,
        )
        if answer is None:
            raise exc
        return answer

    async def _after_model(self, response: LlmResponse) -> LlmResponse:
        """Run the after-model callbacks on a complete response (partial chunks skip them)."""
        replaced = await self._model_hook(
            self.ctx.plugin_manager.run_after_model_callback,
            self.agent.after_model_callback,
            llm_response=response,
        )
        return response if replaced is None else replaced

    async def _after_calls(
        self, call_event: Event, request: LlmRequest
    ) -> AsyncGenerator[Event, None]:
        async with aclosing(
            after_function_calls(
                self.agent, self.ctx, call_event, _toolsets.request_tools(request), self
            )
        ) as events:
            async for event in events:
                yield event


def _pass_grounding_on(ctx: InvocationContext, request: LlmRequest, response: LlmResponse) -> None:
    """Give ``response`` the grounding an agent tool passed on (``GoogleSearchAgentTool``).

    A response grounded by the model itself keeps its own.
    """
    if response.grounding_metadata is not None or not any(
        getattr(tool, "propagate_grounding_metadata", False) for tool in request.tools_dict.values()
    ):
        return
    grounding = ctx.session.state.get(GROUNDING_STATE_KEY)
    if isinstance(grounding, types.GroundingMetadata):
        response.grounding_metadata = grounding


class StepOutcome(Protocol):
    """What a model step records of its function calls (``_Step`` is one)."""

    last_event: Event | None
    stop: bool


class _Outcome:
    """A :class:`StepOutcome` for calls run outside a step."""

    def __init__(self) -> None:
        self.last_event: Event | None = None
        self.stop = False


async def after_function_calls(
    agent: LlmAgent,
    ctx: InvocationContext,
    call_event: Event,
    tools_dict: dict[str, BaseTool],
    outcome: StepOutcome | None = None,
) -> AsyncGenerator[Event, None]:
    """Run the function calls of a model response and what follows from their answers.

    Yields a credential or confirmation request (then the invocation pauses), the calls'
    function-response event, the final answer of a ``set_model_response`` call, and the
    events of an agent the conversation is transferred to. ``outcome`` records the last
    event that ends the step and whether the step must stop.
    """
    outcome = outcome if outcome is not None else _Outcome()
    # a response that delegates tasks: the plain calls first, then each task in turn
    run = _delegating if _tasks.delegated_calls(call_event, tools_dict) else _after_tool_calls
    async with aclosing(run(agent, ctx, call_event, tools_dict, outcome)) as events:
        async for event in events:
            yield event


async def _delegating(
    agent: LlmAgent,
    ctx: InvocationContext,
    call_event: Event,
    tools_dict: dict[str, BaseTool],
    outcome: StepOutcome,
) -> AsyncGenerator[Event, None]:
    """A model response that delegates tasks: its other calls run as usual, then the tasks.

    When the other calls end the step (a pause, an answer, a transfer), the tasks are handed
    over at the agent's next run (``_tasks.resume_delegations``).
    """
    delegated = _tasks.delegated_calls(call_event, tools_dict)
    ids = {call.id for call in delegated}
    others = [call for call in call_event.get_function_calls() if call.id not in ids]
    if others:
        plain = call_event.model_copy(update={"content": _functions.calls_content(others)})
        async with aclosing(_after_tool_calls(agent, ctx, plain, tools_dict, outcome)) as events:
            async for event in events:
                yield event
        if outcome.stop:
            return
    delegations = _tasks.Delegations(agent, ctx, delegated, tools_dict)
    async with aclosing(delegations.events()) as events:
        async for event in events:
            yield event
    outcome.last_event = delegations.last_event or outcome.last_event
    outcome.stop = delegations.waiting


async def _after_tool_calls(
    agent: LlmAgent,
    ctx: InvocationContext,
    call_event: Event,
    tools_dict: dict[str, BaseTool],
    outcome: StepOutcome,
) -> AsyncGenerator[Event, None]:
    if call_event.long_running_tool_ids:
        outcome.stop = True
    stream = _functions.stream_calls(agent, ctx, call_event, tools_dict)
    async with aclosing(stream.events()) as progress:  # a generator tool's progress
        async for event in progress:
            yield event
    response_event = stream.response
    outcome.stop = outcome.stop or stream.paused  # a generator tool asked for input
    if response_event is None:
        return
    ask = _auth.generate_auth_event(ctx, response_event) or (
        _confirmation.generate_request_confirmation_event(ctx, call_event, response_event)
    )
    if ask is not None:  # the request first, as in google-adk; then pause for the answer
        outcome.stop = True
        yield ask
    outcome.last_event = response_event
    yield response_event
    if ask is not None or stream.paused:
        return
    answer = _structured_output.answer_event(agent, ctx, call_event, response_event, tools_dict)
    if answer is not None:
        _structured_output.save_output(agent, answer)
        outcome.last_event, outcome.stop = answer, True
        yield answer
        return
    target_name = response_event.actions.transfer_to_agent
    if not target_name:
        return
    target = agent.root_agent.find_agent(target_name)
    if target is None:
        return
    outcome.stop = True
    async with aclosing(target.run_async(ctx)) as events:
        async for event in events:
            yield event


_COPIED_FIELDS = (
    "partial",  # False when the model said so (a partial chunk's event is built above)
    "model_version",
    "grounding_metadata",
    "citation_metadata",
    "usage_metadata",
    "finish_reason",
    "avg_logprobs",
    "logprobs_result",
    "input_transcription",
    "output_transcription",
    "turn_complete",
    "error_code",
    "error_message",
    "interrupted",
    "custom_metadata",
    "cache_metadata",
    "interaction_id",
    "environment_id",
)


def event_for(response: LlmResponse, model_event: Event) -> Event | None:
    """The event for a model response.

    Partial chunks get their own action-less event with the id of the complete event that
    follows them, so a client can replace the chunks it showed by the stored reply.
    """
    if response.content is None and not response.error_code and not response.interrupted:
        return None
    if response.partial:
        event = Event(
            id=model_event.id,
            invocation_id=model_event.invocation_id,
            author=model_event.author,
            branch=model_event.branch,
            partial=True,
        )
    else:
        event = model_event
    event.content = storable_content(response.content) if response.content else None
    for name in _COPIED_FIELDS:  # strings as storable as the content's (see storable_strings)
        value = getattr(response, name)
        if value is not None:
            setattr(event, name, storable_strings(value))
    return event


async def summary_due(agent: LlmAgent, ctx: InvocationContext) -> Event | None:
    """A compaction summary when the history outgrew the app's token threshold, else None.

    The request may outgrow it inside an invocation (tool calls): the summary comes first,
    committed by the Runner like any event, then the request.
    """
    config = ctx.events_compaction_config
    if config is None or config.token_threshold is None or ctx.isolation_scope is not None:
        return None  # (a delegated task's work is never summarised)
    return await _compaction.summarize_due(
        config, agent, ctx.session.events, token_threshold_only=True
    )


async def add_tools(agent: LlmAgent, ctx: InvocationContext, request: LlmRequest) -> None:
    """Offer the agent's tools: each toolset, then each tool, adjusts the request.

    A tool the request already offers (by name: an earlier step of a request built by hand
    offered it) is not offered again.
    """
    offered = set(request.tools_dict)
    tools = [
        tool
        for tool in await agent.canonical_tools(ReadonlyContext(ctx))
        if tool.name not in offered
    ]
    await _toolsets.prepare_request(agent.tools, tools, ToolContext(ctx), request)


def apply_agent_config(agent: LlmAgent, request: LlmRequest) -> None:
    """Point ``request`` at the agent's model, with a copy of its ``generate_content_config``."""
    request.model = agent.canonical_model.model
    config = agent.generate_content_config
    request.config = (
        config.model_copy(deep=True) if config is not None else types.GenerateContentConfig()
    )


def conversation(
    agent: LlmAgent, ctx: InvocationContext, *, current_turn_only: bool = False
) -> list[types.Content]:
    """The contents the agent's model is sent for the session's history.

    ``current_turn_only`` (or the agent's ``include_contents="none"``): only the current
    turn's.

    The history as :func:`adk_runtime.agents._contents.build_contents` tells it (without
    confirmation requests and answers), of the agent's own scope only (a delegated task's
    work, after the task's arguments as its first message; or everything outside tasks),
    with ``RunConfig.model_input_context`` placed right before the invocation's user message.
    """
    run_config = ctx.run_config
    current_turn_only = current_turn_only or agent.include_contents == "none"
    scope = ctx.isolation_scope
    events = [e for e in ctx.session.events if e.isolation_scope == scope]
    contents = build_contents(
        _confirmation.without_confirmation_events(events),
        agent.name,
        ctx.branch,
        current_turn_only=current_turn_only,
        # As in google-adk, the current turn alone never retells other agents' thoughts.
        other_agents_thoughts=run_config.include_thoughts_from_other_agents
        and not current_turn_only,
        keep_client_ids=keeps_call_ids(agent.canonical_model),
    )
    if scope is not None:  # a delegated task: the delegating call's arguments come first
        task = _tasks.task_input(ctx.session.events, scope, agent.mode == "single_turn")
        if task is not None:
            contents.insert(0, task)
    if run_config.model_input_context:
        at = next(
            (i for i in range(len(contents) - 1, -1, -1) if contents[i] == ctx.user_content),
            0,
        )
        extra = [content.model_copy(deep=True) for content in run_config.model_input_context]
        contents[at:at] = extra
    return contents


def apply_run_config(request: LlmRequest, ctx: InvocationContext) -> None:
    """The invocation's own model-call settings (``RunConfig`` labels and HTTP options)."""
    run_config = ctx.run_config
    if run_config.labels:
        request.config.labels = {**(request.config.labels or {}), **run_config.labels}
    if run_config.http_options is not None:
        request.config.http_options = merged_http_options(
            request.config.http_options, run_config.http_options
        )


def merged_http_options(
    agent: types.HttpOptions | None, invocation: types.HttpOptions
) -> types.HttpOptions:
    """``invocation``'s HTTP options over the agent's: headers added, the rest replaced.

    The base URL and API version belong to the client and are kept from the agent's when set.
    """
    if agent is None:
        return invocation.model_copy(update={"headers": dict(invocation.headers or {})})
    merged = agent.model_copy(
        update={"headers": {**(agent.headers or {}), **(invocation.headers or {})}}
    )
    for name in ("timeout", "retry_options", "extra_body"):
        value = getattr(invocation, name)
        if value is not None:
            setattr(merged, name, value)
    return merged
