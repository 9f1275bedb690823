"""Tool authentication in the agent's loop: ask the user for a credential, then resume.

A tool that calls ``tool_context.request_credential(auth_config)`` records the request (the
agent's secrets removed, see ``AuthHandler.generate_auth_request``) in its response event's
``actions.requested_auth_configs``. Before that response the agent yields a model-role
event with one ``adk_request_credential`` function call per credential (long-running, its
arguments an ``AuthToolArguments``: the call that needs it and what to collect); then the
invocation pauses.

The user answers in a later message with a ``FunctionResponse`` named
``adk_request_credential`` with that call's id, whose response is the ``AuthConfig`` with
``exchanged_auth_credential`` filled in (or just that credential, or a bare API key). The
Runner routes it to the agent that asked, under the paused invocation's id. The answer is
pinned to the request stored in the session: only the credential is taken from the client;
the scheme, endpoints and client come from the stored request, and an OAuth2 answer must
carry the ``state`` the request was issued with. The credential is kept for the rest of the
invocation under ``"temp:" + credential_key`` (never committed); the calls that asked run
again and read it with ``tool_context.get_auth_response``. Everything needed is in the
committed events, so this works after a restart on a durable session store. These events are
never sent to the model.

Nothing here imports ``adk_runtime.auth`` (the ``auth`` extra) until a credential is asked
for or answered.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncGenerator, Mapping
from contextlib import aclosing
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlparse

import pydantic
from google.genai import types

from adk_runtime.agents import _functions
from adk_runtime.agents._client_answers import latest_answers
from adk_runtime.core.invocation_context import InvocationContext
from adk_runtime.errors import InputValidationError
from adk_runtime.events import Event
from adk_runtime.models._call_ids import CLIENT_CALL_ID_PREFIX
from adk_runtime.platform import uuid as platform_uuid

if TYPE_CHECKING:
    from adk_runtime.agents.llm_agent import LlmAgent
    from adk_runtime.auth.auth_credential import AuthCredential
    from adk_runtime.auth.auth_tool import AuthConfig, AuthToolArguments

__all__ = [
    "REQUEST_EUC_FUNCTION_CALL_NAME",
    "TOOLSET_AUTH_CREDENTIAL_ID_PREFIX",
    "build_auth_request_event",
    "check_credential_answers",
    "credential_request",
    "generate_auth_event",
    "resolve_toolset_auth",
    "resume_authorized_calls",
    "store_answer",
]

REQUEST_EUC_FUNCTION_CALL_NAME = "adk_request_credential"
TOOLSET_AUTH_CREDENTIAL_ID_PREFIX = "_adk_toolset_auth_"
"""The ``functionCallId`` of a toolset's request: ``<prefix><toolset class name>``."""

logger = logging.getLogger(__name__)


def build_auth_request_event(
    invocation_context: InvocationContext,
    auth_requests: Mapping[str, AuthConfig | Mapping[str, Any]],
    *,
    author: str | None = None,
    role: str | None = None,
) -> Event:
    """The event asking the client for credentials: one long-running call per credential.

    Two calls that need the same credential (same ``credential_key``) get one request.
    """
    from adk_runtime.auth.auth_tool import AuthConfig, AuthToolArguments

    parts: list[types.Part] = []
    seen: set[str] = set()
    for call_id, requested in auth_requests.items():
        config = requested if isinstance(requested, AuthConfig) else _config(requested)
        key = config.credential_key or ""
        if key and key in seen:
            continue
        seen.add(key)
        arguments = AuthToolArguments(function_call_id=call_id, auth_config=config)
        call = types.FunctionCall(
            id=CLIENT_CALL_ID_PREFIX + platform_uuid.new_uuid(),
            name=REQUEST_EUC_FUNCTION_CALL_NAME,
            args=arguments.model_dump(mode="json", by_alias=True, exclude_none=True),
        )
        parts.append(types.Part(function_call=call))
    return Event(
        invocation_id=invocation_context.invocation_id,
        author=author or invocation_context.agent.name,
        branch=invocation_context.branch,
        content=types.Content(role=role, parts=parts),
        long_running_tool_ids={
            part.function_call.id for part in parts if part.function_call and part.function_call.id
        },
    )


def credential_request(request: AuthConfig, request_id: str, message: str) -> Event:
    """A workflow node's request for a credential (call id ``request_id``).

    One long-running ``adk_request_credential`` call whose ``AuthToolArguments`` name the
    request itself, plus ``message``, the text a client shows. ``request`` is what the
    client receives: ``AuthHandler.generate_auth_request``'s (no agent secret; for OAuth2
    the sign-in URI and its ``state``).
    """
    from adk_runtime.auth.auth_tool import AuthToolArguments

    arguments = AuthToolArguments(function_call_id=request_id, auth_config=request)
    args = arguments.model_dump(mode="json", by_alias=True, exclude_none=True)
    args["message"] = message
    call = types.FunctionCall(id=request_id, name=REQUEST_EUC_FUNCTION_CALL_NAME, args=args)
    return Event(
        content=types.Content(role="model", parts=[types.Part(function_call=call)]),
        long_running_tool_ids={request_id},
    )


async def store_answer(
    ctx: InvocationContext, request: Event, request_id: str, answer: Any
) -> None:
    """Keep the credential ``answer`` brings for the stored request ``request_id``.

    ``request`` is the stored event holding the call. The answer is pinned to it as an
    agent's is (only the credential is taken from the client; an OAuth2 code is exchanged)
    and kept for the rest of the invocation under ``"temp:" + credential_key``.

    Raises:
        InputValidationError: The stored request is malformed, the answer carries no
            credential, or an OAuth2 answer's ``state`` differs from the request's.
    """
    arguments = _stored_requests([request], request.author, {request_id: answer})
    if request_id not in arguments:
        raise InputValidationError(f"No stored credential request {request_id!r} to answer.")
    await _store(ctx, arguments[request_id], answer)


def generate_auth_event(
    invocation_context: InvocationContext, function_response_event: Event
) -> Event | None:
    """The credential request for the calls of ``function_response_event`` that asked, if any."""
    requested = function_response_event.actions.requested_auth_configs
    if not requested:
        return None
    return build_auth_request_event(
        invocation_context,
        requested,
        author=function_response_event.author,
        role=function_response_event.content.role if function_response_event.content else None,
    )


def _config(value: Mapping[str, Any]) -> AuthConfig:
    from adk_runtime.auth.auth_tool import AuthConfig

    return AuthConfig.model_validate(dict(value))


async def resolve_toolset_auth(
    agent: LlmAgent, ctx: InvocationContext
) -> AsyncGenerator[Event, None]:
    """Get the credential of each of ``agent``'s toolsets that needs one, before the model call.

    A credential found (saved, answered, exchanged) is put in ``ctx.credential_by_key`` for
    the toolset to read. Yields an event with the state a credential service wrote (saving
    to the session's state), if any; then, when some toolset has no credential, the event
    asking the user for them, after which the invocation ends (``ctx.end_invocation``).
    """
    from adk_runtime.core.base_toolset import BaseToolset

    toolsets = [tool for tool in agent.tools if isinstance(tool, BaseToolset)]
    configs = [(toolset, toolset.get_auth_config()) for toolset in toolsets]
    needed = [(toolset, config) for toolset, config in configs if config is not None]
    if not needed:
        return
    from adk_runtime.auth.auth_handler import AuthHandler, remember_client_secret
    from adk_runtime.auth.credential_manager import CredentialManager
    from adk_runtime.core.callback_context import CallbackContext

    pending: dict[str, AuthConfig] = {}
    context = CallbackContext(ctx)
    for toolset, config in needed:
        copy = config.model_copy(deep=True)  # the toolset's own config is shared by users
        credential = await CredentialManager(copy).get_auth_credential(context)
        if credential is not None:
            ctx.credential_by_key[config.credential_key or ""] = credential
            continue
        remember_client_secret(copy)
        request_id = TOOLSET_AUTH_CREDENTIAL_ID_PREFIX + type(toolset).__name__
        pending[request_id] = AuthHandler(copy).generate_auth_request()
    if not context.actions.is_empty():
        yield Event(
            invocation_id=ctx.invocation_id,
            author=agent.name,
            branch=ctx.branch,
            actions=context.actions,
        )
    if pending:
        ctx.end_invocation = True
        yield build_auth_request_event(ctx, pending, author=agent.name)


async def resume_authorized_calls(
    agent: LlmAgent, ctx: InvocationContext
) -> AsyncGenerator[Event, None]:
    """If the user's message answers credential requests of ``agent``, run those calls again.

    Yields the calls' function-response event (and a new credential request if a tool asks
    again, which ends the invocation). An answer already acted on (a resent message) runs
    nothing again and ends the invocation when the message holds nothing else.

    Raises:
        InputValidationError: An answer carries no credential, or an OAuth2 answer's
            ``state`` differs from the request's (the Runner checks this before it stores
            the message, see :func:`check_credential_answers`).
    """
    events = ctx.session.events
    index, answers, others = latest_answers(events, REQUEST_EUC_FUNCTION_CALL_NAME)
    if not answers:
        return
    requests = _stored_requests(events[:index], agent.name, answers)
    if not requests:
        return  # another agent's requests (this one was entered again in the invocation)
    reruns = {rid: _rerun(events, rid, args) for rid, args in requests.items()}
    pending = {rid: args for rid, args in requests.items() if reruns[rid] is None}
    if not pending:
        if not others and all(at is not None and at < index for at in reruns.values()):
            ctx.end_invocation = True  # a resent answer: nothing to do
        return  # (or this agent was entered again after acting on the answer this turn)
    for request_id, arguments in pending.items():
        await _store(ctx, arguments, answers[request_id])
    call_ids = {
        arguments.function_call_id
        for arguments in pending.values()
        if not arguments.function_call_id.startswith(TOOLSET_AUTH_CREDENTIAL_ID_PREFIX)
    }
    call_ids |= _same_credential_calls(events[:index], pending.values())
    calls = _stored_calls(events[:index], agent.name, call_ids)
    if not calls:
        return
    _, stream = await _functions.rerun_calls(agent, ctx, calls)
    asks = _functions.rerun_events(ctx, stream, lambda answer: generate_auth_event(ctx, answer))
    async with aclosing(asks) as rerun:  # asks again if the credential was refused
        async for event in rerun:
            yield event


def check_credential_answers(agent_name: str, ctx: InvocationContext, message: Event) -> None:
    """Check the credential answers in ``message`` (not stored yet) as the resume will.

    The Runner calls this before it commits the user's message, so a refused answer is
    never stored. ``agent_name`` is the author of the requests (a workflow's name for its
    function nodes' requests).

    Raises:
        InputValidationError: An answer names no credential request of that author,
            carries no credential, or an OAuth2 answer's ``state`` differs from the
            request's.
    """
    events = [*ctx.session.events, message]
    index, answers, _ = latest_answers(events, REQUEST_EUC_FUNCTION_CALL_NAME)
    if index != len(events) - 1 or not answers:
        return
    requests = _stored_requests(events[:index], agent_name, answers)
    unknown = sorted(set(answers) - set(requests))
    if unknown:
        raise InputValidationError(
            f"{REQUEST_EUC_FUNCTION_CALL_NAME} answer(s) {unknown} name no credential request "
            f"of agent {agent_name!r} in this session."
        )
    for request_id, arguments in requests.items():
        if _rerun(events, request_id, arguments) is None:
            requested = arguments.auth_config
            _check_state(requested, _answered_credential(requested, answers[request_id]))


def _stored_requests(
    events: list[Event], agent_name: str, answers: Mapping[str, Any]
) -> dict[str, AuthToolArguments]:
    """The stored requests of ``agent_name`` that ``answers`` answer, by call id.

    Raises:
        InputValidationError: A stored request's arguments are malformed.
    """
    from adk_runtime.auth.auth_tool import AuthToolArguments

    requests: dict[str, AuthToolArguments] = {}
    for event in events:
        if event.author != agent_name:
            continue
        for call in event.get_function_calls():
            if call.id and call.name == REQUEST_EUC_FUNCTION_CALL_NAME and call.id in answers:
                try:
                    requests[call.id] = AuthToolArguments.model_validate(call.args or {})
                except pydantic.ValidationError as exc:
                    raise InputValidationError(
                        f"The stored credential request {call.id!r} is malformed."
                    ) from exc
    return requests


def _rerun(events: list[Event], request_id: str, arguments: AuthToolArguments) -> int | None:
    """Where the call that asked ran again after its first answer, if it did.

    For a toolset's request: where the agent went on after the first answer.
    """
    toolset = arguments.function_call_id.startswith(TOOLSET_AUTH_CREDENTIAL_ID_PREFIX)
    answered = False
    for at, event in enumerate(events):
        if answered and toolset and event.author != "user":
            return at
        for response in event.get_function_responses():
            if event.author == "user" and response.id == request_id:
                answered = True
            elif answered and event.author != "user" and response.id == arguments.function_call_id:
                return at
    return None


def _same_credential_calls(events: list[Event], answered: Any) -> set[str]:
    """Other calls that asked for a credential answered here (one request served them all)."""
    keys = {arguments.auth_config.credential_key for arguments in answered}
    ids: set[str] = set()
    for event in events:
        for call_id, requested in event.actions.requested_auth_configs.items():
            key = requested.get("credentialKey") if isinstance(requested, dict) else None
            if key in keys:
                ids.add(call_id)
    return ids


def _stored_calls(events: list[Event], agent_name: str, ids: set[str]) -> list[types.FunctionCall]:
    calls: dict[str, types.FunctionCall] = {}
    for event in events:
        if event.author != agent_name:
            continue
        for call in event.get_function_calls():
            if call.id in ids and call.name != REQUEST_EUC_FUNCTION_CALL_NAME:
                calls[call.id] = call
    return list(calls.values())


async def _store(ctx: InvocationContext, arguments: AuthToolArguments, answer: Any) -> None:
    """Pin ``answer`` to the stored request and keep the credential for this invocation.

    A code the token endpoint refuses leaves no credential (logged): the caller asks again.
    """
    from adk_runtime.auth.auth_handler import AuthHandler

    requested = arguments.auth_config
    credential = _answered_credential(requested, answer)
    _check_state(requested, credential)
    from adk_runtime.auth.exchanger.base_credential_exchanger import CredentialExchangeError

    pinned = requested.model_copy(deep=True)
    pinned.exchanged_auth_credential = _backfilled(credential, requested)
    try:
        await AuthHandler(pinned).parse_and_store_auth_response(ctx.session.state)
    except CredentialExchangeError as exc:
        # A refused or spent code: the call runs without it and asks the user again.
        logger.warning("%s The call that asked will ask the user again.", exc)


def _answered_credential(requested: AuthConfig, answer: Any) -> AuthCredential:
    """The credential in the client's answer: an AuthConfig, an AuthCredential or a key."""
    from adk_runtime.auth.auth_credential import AuthCredential, AuthCredentialTypes
    from adk_runtime.auth.auth_tool import AuthConfig

    value = answer
    if isinstance(answer, dict) and len(answer) == 1 and {"response", "result"} & set(answer):
        value = next(iter(answer.values()))  # a bare key or credential, wrapped
    if isinstance(value, str) and value.startswith("{"):
        with contextlib.suppress(ValueError):
            value = json.loads(value)  # a web client's JSON text
    credential: AuthCredential | None = None
    if isinstance(value, dict):
        try:
            credential = AuthConfig.model_validate(value).exchanged_auth_credential
        except pydantic.ValidationError:
            try:
                credential = AuthCredential.model_validate(value)
            except pydantic.ValidationError:
                credential = None
    elif isinstance(value, str | int | float) and not isinstance(value, bool):
        raw = requested.raw_auth_credential
        if raw is not None and raw.auth_type == AuthCredentialTypes.API_KEY:
            credential = AuthCredential(auth_type=AuthCredentialTypes.API_KEY, api_key=str(value))
    if credential is None:
        raise InputValidationError(
            f"The {REQUEST_EUC_FUNCTION_CALL_NAME} answer carries no credential: send the "
            "request's auth config with exchangedAuthCredential filled in."
        )
    return credential


def _check_state(requested: AuthConfig, credential: AuthCredential) -> None:
    """An OAuth2 answer must come back with the ``state`` its sign-in URI was issued with."""
    issued = requested.exchanged_auth_credential
    expected = issued.oauth2.state if issued is not None and issued.oauth2 is not None else None
    oauth2 = credential.oauth2
    if not expected or oauth2 is None or oauth2.access_token:
        return
    returned = set()
    if oauth2.state:
        returned.add(oauth2.state)
    if oauth2.auth_response_uri:
        returned.update(parse_qs(urlparse(oauth2.auth_response_uri).query).get("state", []))
    if returned != {expected}:
        raise InputValidationError(
            f"The {REQUEST_EUC_FUNCTION_CALL_NAME} answer's OAuth2 state does not match the "
            "sign-in it answers: ignored. Sign in again from the request's auth URI."
        )


def _backfilled(credential: AuthCredential, requested: AuthConfig) -> AuthCredential:
    """``credential`` with the client and PKCE fields the stored request holds."""
    source = requested.exchanged_auth_credential or requested.raw_auth_credential
    if source is None or source.oauth2 is None:
        return credential
    merged = credential.model_copy(deep=True)
    if merged.oauth2 is None:
        merged.oauth2 = source.oauth2.model_copy(deep=True)
        return merged
    for name in ("client_id", "redirect_uri", "code_verifier", "code_challenge_method", "state"):
        if getattr(merged.oauth2, name) is None:
            setattr(merged.oauth2, name, getattr(source.oauth2, name))
    # The client never chooses the client or the verifier: the stored request's win.
    merged.oauth2.client_id = source.oauth2.client_id or merged.oauth2.client_id
    merged.oauth2.code_verifier = source.oauth2.code_verifier or merged.oauth2.code_verifier
    merged.oauth2.client_secret = None
    if "token_endpoint_auth_method" not in merged.oauth2.model_fields_set:
        merged.oauth2.token_endpoint_auth_method = source.oauth2.token_endpoint_auth_method
    return merged
