"""Check the client's answers to the runtime's own calls before the user's message is stored.

A confirmation or credential answer the agent would refuse must not be committed: the
Runner calls :func:`check_client_answers` with the message it is about to store, and a
refused answer raises :class:`InputValidationError` with nothing written.
"""

from __future__ import annotations

from collections.abc import Callable

from google.genai import types

from adk_runtime.agents._auth import check_credential_answers
from adk_runtime.agents._confirmation import (
    CLIENT_CALLS,
    check_confirmation_answers,
)
from adk_runtime.agents._generator_tools import run_caller
from adk_runtime.agents._input_requests import check_input_answers
from adk_runtime.agents.llm_agent import LlmAgent
from adk_runtime.core.base_agent import BaseAgent
from adk_runtime.core.invocation_context import InvocationContext
from adk_runtime.errors import InputValidationError
from adk_runtime.events import Event
from adk_runtime.events._calls import calling_event
from adk_runtime.tools._request_input_tool import REQUEST_INPUT_FUNCTION_CALL_NAME

__all__ = ["check_by_author", "check_client_answers"]

_RUNTIME_CALLS = CLIENT_CALLS | {REQUEST_INPUT_FUNCTION_CALL_NAME}
"""The calls the runtime makes to the client: each answer must carry its call's name."""


async def check_client_answers(agent: BaseAgent, ctx: InvocationContext, message: Event) -> None:
    """Raise unless every answer in ``message`` would be accepted by ``agent``, the one to run.

    Raises:
        InputValidationError: An answer to one of the runtime's calls has another name;
            an answer is malformed, names no request of ``agent``, or does
            not match the stored request (see the confirmation and credential flows), or
            answers an input request under another name; to a workflow node, answers
            mixed with text, answering no call, or calls of several invocations.
    """
    _check_names(ctx, message)
    check_input_answers(ctx, message)
    answered = sorted(
        name
        for name in {response.name for response in message.get_function_responses()}
        if name in CLIENT_CALLS
    )
    agent._check_client_message(ctx, message)
    if not answered:
        return
    message = await _check_run_answers(ctx, message)
    if not message.get_function_responses():
        return
    await agent._check_client_answers(ctx, message, answered)


def _check_names(ctx: InvocationContext, message: Event) -> None:
    """Refuse an answer to a confirmation or credential call made under another name.

    Stored under the wrong name, such an answer would escape the checks made for its kind (a
    credential's before it is stored) and the redaction of its secrets when served. An
    answer to an input request (``adk_request_input``) is matched by its id, as google-adk
    matches it, and stored under its call's name, so a model shown the pair sees one name.
    """
    responses = {r.id: r.name for r in message.get_function_responses() if r.id}
    if not responses:
        return
    renamed: dict[str, str] = {}
    for event in ctx.session.events:
        for call in event.get_function_calls():
            name = responses.get(call.id or "")
            if name is None or call.name not in _RUNTIME_CALLS or name == call.name:
                continue
            if call.name != REQUEST_INPUT_FUNCTION_CALL_NAME:
                raise InputValidationError(
                    f"Function response {call.id!r} answers the call {call.name!r}: give it "
                    f"that name, not {name!r}."
                )
            renamed[call.id or ""] = call.name
    if renamed and message.content is not None:
        message.content = _renamed(message.content, renamed)


def _renamed(content: types.Content, names: dict[str, str]) -> types.Content:
    """``content`` with the responses to ``names``' ids under those names, as a copy.

    The caller's message is not changed.
    """
    parts: list[types.Part] = []
    for part in content.parts or []:
        response = part.function_response
        if response is not None and (response.id or "") in names:
            fixed = response.model_copy(update={"name": names[response.id or ""]})
            part = part.model_copy(update={"function_response": fixed})
        parts.append(part)
    return content.model_copy(update={"parts": parts})


async def _check_run_answers(ctx: InvocationContext, message: Event) -> Event:
    """Check the answers to a tool call's run; return ``message`` without them.

    Such an answer (a workflow tool's agent asked) goes to the call's agent, which runs the
    call again, and the run's agent that asked reads it: it is checked against the request
    that agent stored, by its name (an agent of the caller's tree may share the name).
    """
    parts = message.content.parts or [] if message.content is not None else []
    by_author: dict[str, list[types.Part]] = {}
    rest: list[types.Part] = []
    for part in parts:
        response = part.function_response
        asked = None
        if response is not None and response.name in CLIENT_CALLS:
            asked = calling_event(ctx.session.events, response.id or "")
        if asked is not None and run_caller(asked) is not None:
            by_author.setdefault(asked.author, []).append(part)
        else:
            rest.append(part)
    if not by_author:
        return message
    await check_by_author(ctx, message, by_author, lambda _author: None)
    return message.model_copy(update={"content": types.Content(role="user", parts=rest)})


async def check_by_author(
    ctx: InvocationContext,
    message: Event,
    by_author: dict[str, list[types.Part]],
    agent_named: Callable[[str], BaseAgent | None],
) -> None:
    """Check each author's answers against its stored requests (its tools, for an agent)."""
    for author, answers in by_author.items():
        only = message.model_copy(update={"content": types.Content(role="user", parts=answers)})
        agent = agent_named(author)
        target: LlmAgent | str = agent if isinstance(agent, LlmAgent) else author
        await check_confirmation_answers(target, ctx, only)
        check_credential_answers(author, ctx, only)
