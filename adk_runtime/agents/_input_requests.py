"""Input requests of generator tools: the user answers, the call runs again with the answer.

A generator tool that yields a :class:`~adk_runtime.events.RequestInput` commits (as the
tool's progress event) an ``adk_request_input`` function call whose id is the request's
``interrupt_id``, marked long-running, and its call pauses without a response; the invocation
pauses after the calls' response event (see ``adk_runtime.agents._generator_tools``).

The user answers in a later message with a ``FunctionResponse`` named ``adk_request_input``
with that id. The Runner routes it to the agent whose call asked, under the paused
invocation's id (as for long-running tools). Before its first model call the agent runs the
call again from the start, with ``tool_context.resume_inputs`` holding every answer the user
gave to that call's requests (``{"result": x}`` is taken as ``x``, and a string that is JSON
as its value, as google-adk's web UI sends text), and goes on. Everything needed is in the
committed events, so this works after a restart, on any replica. An answer already acted on
(a resent message) runs nothing again. Answers to the model's own ``adk_request_input`` tool
(``tools.request_input``, a plain long-running tool) are not these: the model reads them.

A call that made a run of its own (a node tool's workflow) waits the same way on what its
run waits on: its nodes' questions and its agents' long-running tools, committed in the
call's scope under its path (``_generator_tools.RunEvent``). The user's answer to one of
those runs the call again, and the run reads the answer from the log.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from google.genai import types
from jsonschema import exceptions as schema_errors
from jsonschema import validators

from adk_runtime.agents import _functions
from adk_runtime.agents._client_answers import latest_answers
from adk_runtime.agents._generator_tools import caller_of
from adk_runtime.core.invocation_context import InvocationContext
from adk_runtime.errors import InputValidationError
from adk_runtime.events import Event
from adk_runtime.tools._request_input_tool import REQUEST_INPUT_FUNCTION_CALL_NAME

if TYPE_CHECKING:
    from adk_runtime.agents.llm_agent import LlmAgent

__all__ = ["asked_by_calls", "calls_that_asked", "check_input_answers", "resume_answered_inputs"]


def asked_by_calls(events: list[Event], agent_name: str, call_ids: set[str]) -> set[str]:
    """The ids of the input requests made in these calls of ``agent_name`` (any answered)."""
    return {rid for rid, call_id in _requests(events, agent_name).items() if call_id in call_ids}


def calls_that_asked(events: list[Event], agent_name: str) -> set[str]:
    """The ids of ``agent_name``'s calls whose generator tools asked for input."""
    return set(_requests(events, agent_name).values())


async def resume_answered_inputs(
    agent: LlmAgent, ctx: InvocationContext
) -> AsyncGenerator[Event, None]:
    """If the user's message answers input requests of ``agent``'s tools, run those calls.

    Yields the calls' progress events and their function-response event; a call that asks
    again pauses the invocation again. An answer already acted on runs nothing again and
    ends the invocation when the message holds nothing else.
    """
    events = ctx.session.events
    index, _, _ = latest_answers(events, REQUEST_INPUT_FUNCTION_CALL_NAME)
    responses = events[index].get_function_responses() if index >= 0 else []
    answered = {response.id for response in responses if response.id}
    asked = _requests(events[:index], agent.name) if answered else {}
    requests = {rid: call_id for rid, call_id in asked.items() if rid in answered}
    if not requests:
        return
    others = bool(answered - set(requests))
    calls = _calls(events[:index], agent.name, set(requests.values()))
    # each call's own answers: those given since it was made
    pending = {
        call.id or "": (call, _inputs_of(events[at : index + 1], agent.name, call))
        for at, call in calls
        if not _ran_after_first_answer(events[at:], call, requests)
    }
    if not pending:
        if not others:
            ctx.end_invocation = True  # a resent answer: nothing to do
        return
    inputs = {call_id: given for call_id, (_, given) in pending.items()}
    reruns = [call for call, _ in pending.values()]
    _, stream = await _functions.rerun_calls(agent, ctx, reruns, inputs=inputs)
    async with aclosing(stream.events()) as progress:
        async for event in progress:
            yield event
    stream.end_invocation_if_paused(ctx)  # a tool asks again: pause again after the response
    if _still_waiting(ctx.session.events, agent.name, [call for _, call in calls]):
        ctx.end_invocation = True  # another call's question is not answered yet
    if stream.response is not None:
        yield stream.response


def check_input_answers(ctx: InvocationContext, message: Event) -> None:
    """Refuse (before it is stored) an answer an input request cannot take.

    The requests are those of generator tools (their progress events) and of workflow nodes
    (``adk_runtime.workflow``): ``adk_request_input`` calls of events made on a node path.

    An answer under another name is refused before this (``_answer_checks``).

    Raises:
        InputValidationError: An answer does not match its request's ``response_schema``.
    """
    ids = {r.id for r in message.get_function_responses() if r.id}
    if not ids:
        return
    requested = {
        call.id: call
        for event in ctx.session.events
        if event.node_info.path and event.author != "user"
        for call in event.get_function_calls()
        if call.id in ids and call.name == REQUEST_INPUT_FUNCTION_CALL_NAME
    }
    for response in message.get_function_responses():
        request = requested.get(response.id or "")
        if request is None:
            continue
        check_answer_schema(response.id or "", unwrapped_answer(response.response), request)


def check_answer_schema(request_id: str, answer: Any, request: types.FunctionCall) -> None:
    """Raise unless ``answer`` matches the request's ``response_schema`` (when it has one)."""
    schema = (request.args or {}).get("response_schema")
    if not isinstance(schema, dict):
        return
    try:
        error = schema_errors.best_match(
            validators.validator_for(schema)(schema).iter_errors(answer)
        )
    except schema_errors.SchemaError:
        return  # the tool's schema is not one: nothing to check against
    if error is not None:  # where and which rule, never the value
        where = "".join(f"[{step!r}]" for step in error.absolute_path) or "the answer"
        raise InputValidationError(
            f"The answer to input request {request_id!r} does not match its response_schema: "
            f"{where} fails {error.validator!r} ({json.dumps(error.validator_value)[:80]})."
        )


def _still_waiting(events: list[Event], agent_name: str, calls: list[types.FunctionCall]) -> bool:
    """Whether a call made with ``calls`` (same model turn) still waits for the user."""
    call_ids = {call.id for call in calls if call.id}
    turn = [
        call.id
        for event in events
        if event.author == agent_name and any(c.id in call_ids for c in event.get_function_calls())
        for call in event.get_function_calls()
        if call.id
    ]
    answered = {
        r.id for event in events if event.author != "user" for r in event.get_function_responses()
    }
    open_calls = set(turn) - answered
    asked = asked_by_calls(events, agent_name, open_calls)
    given = {
        r.id for event in events if event.author == "user" for r in event.get_function_responses()
    }
    return bool(asked - given)


def _requests(events: list[Event], agent_name: str) -> dict[str, str]:
    """The input requests of ``agent_name``'s tools: request id → the asking call's id.

    A generator tool's ``adk_request_input`` calls, and the calls a call's run waits on (its
    nodes' questions, its agents' long-running tools).
    """
    found: dict[str, str] = {}
    for event in events:
        owner = caller_of(event)
        if owner is None or owner[0] != agent_name:
            continue
        for call in event.get_function_calls():
            if call.id and call.id in (event.long_running_tool_ids or set()):
                found[call.id] = owner[1]
    return found


def _calls(
    events: list[Event], agent_name: str, call_ids: set[str]
) -> list[tuple[int, types.FunctionCall]]:
    """The agent's latest stored call with each of these ids, and where it is, in order.

    A model may give an id again in a later turn: the answer is for the latest such call.
    """
    found: dict[str, tuple[int, types.FunctionCall]] = {}
    for index, event in enumerate(events):
        if event.author == agent_name:
            for call in event.get_function_calls():
                if call.id in call_ids:
                    found.pop(call.id, None)  # its place is the latest one's
                    found[call.id] = (index, call)
    return list(found.values())


def _ran_after_first_answer(
    events: list[Event], call: types.FunctionCall, requests: dict[str, str]
) -> bool:
    """Whether ``call`` ran again to its end (answered, or asked again) after an answer.

    ``events`` start at the call: an answer to an earlier call that asked with the same
    request id (a tool's fixed ``interrupt_id``) is not this call's. A rerun cut short (only
    its progress committed) did not.
    """
    asked = {rid for rid, call_id in requests.items() if call_id == call.id}
    answered = False
    for event in events:
        if event.author == "user":
            answered |= any(r.id in asked for r in event.get_function_responses())
            continue
        if not answered:
            continue
        owner = caller_of(event)
        if owner is not None and owner[1] == call.id and _asks(event):
            return True  # it asked again
        if any(r.id == call.id for r in event.get_function_responses()):
            return True
    return False


def _asks(event: Event) -> bool:
    """Whether ``event`` waits for the user (a call's run also commits its other work)."""
    waiting = event.long_running_tool_ids or set()
    return any(call.id in waiting for call in event.get_function_calls())


def _inputs_of(events: list[Event], agent_name: str, call: types.FunctionCall) -> dict[str, Any]:
    """Every answer the user gave to ``call``'s input requests, by request id (latest wins)."""
    asked = asked_by_calls(events, agent_name, {call.id or ""})
    inputs: dict[str, Any] = {}
    for event in events:
        if event.author != "user":
            continue
        for response in event.get_function_responses():
            if response.id in asked:
                inputs[response.id] = unwrapped_answer(response.response)
    return inputs


def unwrapped_answer(response: dict[str, Any] | None) -> Any:
    """The answer a response carries: ``{"result": x}`` is ``x`` (JSON text parsed)."""
    if not isinstance(response, dict) or set(response) != {"result"}:
        return response
    value = response["result"]
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value
