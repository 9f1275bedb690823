"""Tool confirmation (human in the loop): pause a call for the user's answer, then resume it.

A tool that calls ``tool_context.request_confirmation`` (or has ``require_confirmation``)
answers at once with a placeholder; its function-response event carries
``actions.requested_tool_confirmations``. Before that event the agent yields (as google-adk
does) a model-role event with an ``adk_request_confirmation`` function call per call awaiting
an answer, with the original call and the request in its arguments, marked long-running;
after the function-response event the invocation pauses.

The user answers in a later message with a ``FunctionResponse`` named
``adk_request_confirmation`` with that call's id, whose response is a ``ToolConfirmation``.
The Runner routes it to the agent that asked, under the paused invocation's id (as for
long-running tools); the agent checks the answer against the stored history, runs the
original call again with ``tool_context.tool_confirmation`` set, yields its response, and
asks the model to go on. Everything needed is in the committed events, so this works after
a process restart on a durable session store. The confirmation events are never sent to
the model.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pydantic
from google.genai import types

from adk_runtime.agents import _functions
from adk_runtime.agents._client_answers import latest_answers
from adk_runtime.core.invocation_context import InvocationContext
from adk_runtime.core.readonly_context import ReadonlyContext
from adk_runtime.core.tool_context import ToolContext
from adk_runtime.errors import InputValidationError
from adk_runtime.events import Event
from adk_runtime.events._credential_secrets import CREDENTIAL_REQUEST
from adk_runtime.events.tool_confirmation import ToolConfirmation
from adk_runtime.models._call_ids import CLIENT_CALL_ID_PREFIX
from adk_runtime.platform import uuid as platform_uuid

if TYPE_CHECKING:
    from adk_runtime.agents.llm_agent import LlmAgent

__all__ = [
    "CLIENT_CALLS",
    "REQUEST_CONFIRMATION_FUNCTION_CALL_NAME",
    "check_confirmation_answers",
    "generate_request_confirmation_event",
    "resume_confirmed_calls",
    "without_confirmation_events",
]

REQUEST_CONFIRMATION_FUNCTION_CALL_NAME = "adk_request_confirmation"


def generate_request_confirmation_event(
    invocation_context: InvocationContext,
    function_call_event: Event,
    function_response_event: Event,
) -> Event | None:
    """The ``adk_request_confirmation`` call event for the confirmations a response asks for.

    None when ``function_response_event`` asks for none.
    """
    requested = function_response_event.actions.requested_tool_confirmations
    calls = {call.id: call for call in function_call_event.get_function_calls() if call.id}
    parts: list[types.Part] = []
    for call_id, confirmation in requested.items():
        original = calls.get(call_id)
        if original is None:
            continue
        request = types.FunctionCall(
            id=CLIENT_CALL_ID_PREFIX + platform_uuid.new_uuid(),
            name=REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
            args={
                "originalFunctionCall": original.model_dump(
                    mode="json", exclude_none=True, by_alias=True
                ),
                "toolConfirmation": confirmation.model_dump(
                    mode="json", exclude_none=True, by_alias=True
                ),
            },
        )
        parts.append(types.Part(function_call=request))
    if not parts:
        return None
    return Event(
        invocation_id=invocation_context.invocation_id,
        author=function_response_event.author,
        branch=invocation_context.branch,
        content=types.Content(role="model", parts=parts),
        long_running_tool_ids={
            part.function_call.id for part in parts if part.function_call and part.function_call.id
        },
    )


CLIENT_CALLS = frozenset({REQUEST_CONFIRMATION_FUNCTION_CALL_NAME, CREDENTIAL_REQUEST})
"""The calls the runtime makes to the client (never to or from the model)."""


def without_confirmation_events(events: list[Event]) -> list[Event]:
    """``events`` without the confirmation and credential requests and answers.

    The model never sees them: they are between the runtime and the client.
    """
    return [event for event in events if not _is_client_call_event(event)]


def _is_client_call_event(event: Event) -> bool:
    for part in (event.content.parts if event.content else None) or []:
        item: Any = part.function_call or part.function_response
        if item is not None and item.name in CLIENT_CALLS:
            return True
    return False


@dataclass
class _Resumption:
    """The original calls the user's answers resume, and the answers by original call id."""

    calls: list[types.FunctionCall] = field(default_factory=list)
    answers: dict[str, ToolConfirmation] = field(default_factory=dict)
    consumed: int = 0
    consumed_this_turn: bool = False


async def resume_confirmed_calls(
    agent: LlmAgent, ctx: InvocationContext
) -> AsyncGenerator[Event, None]:
    """If the user's message answers confirmation requests of ``agent``, run those calls.

    Yields the calls' function-response event (and a new confirmation request if a tool
    asks again, which ends the invocation). An answer already acted on (a resent message)
    runs nothing again and ends the invocation when the message holds nothing else.

    Raises:
        InputValidationError: An answer is malformed or does not match the stored request
            (unknown original call, changed arguments, a tool that needs no confirmation).
    """
    events = ctx.session.events
    answer_index, raw, other_responses = latest_answers(
        events, REQUEST_CONFIRMATION_FUNCTION_CALL_NAME
    )
    answers = {request_id: _parse_answer(response) for request_id, response in raw.items()}
    if not answers:
        return
    resumption = await _match(agent, ctx, events, answer_index, answers)
    if not resumption.calls:
        if resumption.consumed and not resumption.consumed_this_turn and not other_responses:
            ctx.end_invocation = True  # a resent answer: nothing to do
        return
    call_event, stream = await _functions.rerun_calls(
        agent, ctx, resumption.calls, confirmations=resumption.answers
    )

    def ask_again(answer: Event) -> Event | None:
        return generate_request_confirmation_event(ctx, call_event, answer)

    async with aclosing(_functions.rerun_events(ctx, stream, ask_again)) as rerun:
        async for event in rerun:
            yield event


async def check_confirmation_answers(
    agent: LlmAgent | str, ctx: InvocationContext, message: Event
) -> None:
    """Check the confirmation answers in ``message`` (not stored yet) as the resume will.

    The Runner calls this before it commits the user's message, so a refused answer is
    never stored. ``agent`` is the agent that asked, or only its name when the agent
    cannot be found before it runs (one a workflow's function node runs with
    ``ctx.run_node``): then whether its tool needs a confirmation is left to the resume.

    Raises:
        InputValidationError: An answer names no confirmation request of ``agent``, or
            :func:`resume_confirmed_calls` would refuse it.
    """
    events = [*ctx.session.events, message]
    answer_index, raw, _ = latest_answers(events, REQUEST_CONFIRMATION_FUNCTION_CALL_NAME)
    if answer_index != len(events) - 1 or not raw:
        return
    answers = {request_id: _parse_answer(response) for request_id, response in raw.items()}
    name = agent if isinstance(agent, str) else agent.name
    asked = {
        call.id
        for event in events[:answer_index]
        if event.author == name
        for call in event.get_function_calls()
        if call.name == REQUEST_CONFIRMATION_FUNCTION_CALL_NAME
    }
    unknown = sorted(set(answers) - asked)
    if unknown:
        raise InputValidationError(
            f"{REQUEST_CONFIRMATION_FUNCTION_CALL_NAME} answer(s) {unknown} name no "
            f"confirmation request of agent {name!r} in this session."
        )
    await _match(agent, ctx, events, answer_index, answers)


def _parse_answer(response: dict[str, Any] | None) -> ToolConfirmation:
    try:
        return ToolConfirmation.from_response_dict(response or {})
    except (pydantic.ValidationError, ValueError) as exc:
        raise InputValidationError(
            f"The answer to {REQUEST_CONFIRMATION_FUNCTION_CALL_NAME} is not a ToolConfirmation "
            '(expected {"confirmed": true|false, "payload": ...}).'
        ) from exc


async def _match(
    agent: LlmAgent | str,
    ctx: InvocationContext,
    events: list[Event],
    answer_index: int,
    answers: dict[str, ToolConfirmation],
) -> _Resumption:
    """Check each answer against the stored request and the original call it names."""
    name = agent if isinstance(agent, str) else agent.name
    requests = {
        call.id: call
        for event in events[:answer_index]
        if event.author == name
        for call in event.get_function_calls()
        if call.name == REQUEST_CONFIRMATION_FUNCTION_CALL_NAME and call.id in answers
    }
    history = _History(events, name)
    result = _Resumption()
    for request_id, request in requests.items():
        original = _original_call(request)
        ran_at = history.run_after_first_answer(original.id or "", request_id)
        if ran_at is not None:  # already acted on (by a resent message, or earlier this turn)
            result.consumed += 1
            result.consumed_this_turn |= ran_at > answer_index
            continue
        await history.check(agent, ctx, original)
        result.calls.append(original)
        result.answers[original.id or ""] = answers[request_id]
    return result


def _original_call(request: types.FunctionCall) -> types.FunctionCall:
    raw = (request.args or {}).get("originalFunctionCall")
    try:
        original = types.FunctionCall.model_validate(raw)
    except pydantic.ValidationError:
        original = None
    if original is None or not original.id or not original.name:
        raise InputValidationError(
            f"The {REQUEST_CONFIRMATION_FUNCTION_CALL_NAME} call {request.id!r} names no "
            "original function call (id and name)."
        )
    return original


class _History:
    """What the stored events say about the calls a confirmation may resume."""

    def __init__(self, events: list[Event], agent_name: str) -> None:
        self.events = events
        self.calls: dict[str, types.FunctionCall] = {
            call.id: call
            for event in events
            if event.author == agent_name
            for call in event.get_function_calls()
            if call.id and call.name != REQUEST_CONFIRMATION_FUNCTION_CALL_NAME
        }
        self.requested = {
            response.id
            for event in events
            for response in event.get_function_responses()
            if response.id in event.actions.requested_tool_confirmations
        }

    def run_after_first_answer(self, original_id: str, request_id: str) -> int | None:
        """Where the original call ran again after the user first answered, if it did."""
        answered = False
        for index, event in enumerate(self.events):
            for response in event.get_function_responses():
                if event.author == "user" and response.id == request_id:
                    answered = True
                elif answered and event.author != "user" and response.id == original_id:
                    return index
        return None

    async def check(
        self, agent: LlmAgent | str, ctx: InvocationContext, original: types.FunctionCall
    ) -> None:
        """Raise unless ``original`` is a stored call of this agent that needs confirming.

        Given only the agent's name, the tool itself is not checked (the resume does).
        """
        stored = self.calls.get(original.id or "")
        if stored is None:
            raise InputValidationError(
                f"Confirmed function call {original.id!r} is not in this agent's history."
            )
        if stored.name != original.name:
            raise InputValidationError(
                f"Confirmed function call {original.id!r}: name mismatch with the stored call."
            )
        if (stored.args or {}) != (original.args or {}):
            raise InputValidationError(
                f"Confirmed function call {original.id!r}: arguments mismatch with the stored call."
            )
        if original.id in self.requested or isinstance(agent, str):
            return  # the tool asked for it (request_confirmation) when it ran
        tools = {tool.name: tool for tool in await agent.canonical_tools(ReadonlyContext(ctx))}
        tool = tools.get(original.name or "")
        if tool is None:
            raise InputValidationError(f"Tool {original.name!r} is not registered on this agent.")
        context = ToolContext(ctx, function_call_id=original.id)
        if not await tool.check_require_confirmation(dict(original.args or {}), context):
            raise InputValidationError(f"Tool {original.name!r} does not require confirmation.")
