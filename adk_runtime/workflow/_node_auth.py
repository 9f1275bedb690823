"""A function node's credential (``FunctionNode(auth_config=...)``): ask the user, then run.

The node's request is an ``adk_request_credential`` call like a tool's (see
``adk_runtime.agents._auth``), made by the node itself: its id is the interrupt id
``wf_auth:<node path>`` (google-adk's), and its ``functionCallId`` is that same id, as no
tool call waits on it. The Runner checks an answer against the stored request before it
stores it (``_answer_checks``); the node, run again with the answer in
``ctx.resume_inputs``, pins it to the request and keeps the credential for the invocation.
Nothing here imports ``adk_runtime.auth`` (the ``auth`` extra) unless a node has an
``auth_config``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from adk_runtime.events._calls import calling_event
from adk_runtime.workflow._interrupts import node_request_id

if TYPE_CHECKING:
    from adk_runtime.auth.auth_tool import AuthConfig
    from adk_runtime.events.event import Event
    from adk_runtime.workflow._context import NodeContext

__all__ = [
    "AUTH_REQUEST_PREFIX",
    "auth_request_id",
    "credential_gate",
    "credential_request_event",
    "take_credential_answer",
]

AUTH_REQUEST_PREFIX = "wf_auth:"


def auth_request_id(node_path: str, attempt: int = 1) -> str:
    """The id of the credential request the node run at ``node_path`` makes.

    ``wf_auth:<path>``; a path over 100 characters is replaced by its SHA-256. A request
    made again (the first answer's OAuth2 code was refused) ends in ``:<attempt>``.
    """
    return node_request_id(AUTH_REQUEST_PREFIX, node_path) + (f":{attempt}" if attempt > 1 else "")


async def credential_gate(auth_config: AuthConfig, ctx: NodeContext) -> Event | None:
    """The credential request a function node yields, or None when it may run.

    The latest answer in ``ctx.resume_inputs`` is kept for the invocation first (an OAuth2
    code is exchanged with the node's own client, on whichever replica runs it); then the
    node runs if the invocation holds a credential for ``auth_config`` (this answer's, or
    one another node got), and asks (again) otherwise.

    Raises:
        InputValidationError: The answer carries no credential, or an OAuth2 answer's
            ``state`` differs from the request's (checked before it was stored, too).
    """
    from adk_runtime.auth.auth_handler import AuthHandler, remember_client_secret

    remember_client_secret(auth_config)  # the node's own config: a code is exchanged anywhere
    attempt = await take_credential_answer(ctx)
    if ctx.get_auth_response(auth_config) is not None:
        return None
    request = AuthHandler(auth_config).generate_auth_request()
    return credential_request_event(request, ctx, attempt)


async def take_credential_answer(ctx: NodeContext) -> int:
    """Keep the latest answer to the run's credential requests; the next request's attempt.

    Raises:
        InputValidationError: The answer carries no credential, or an OAuth2 answer's
            ``state`` differs from the request's.
    """
    from adk_runtime.agents import _auth

    attempt = 1
    while auth_request_id(ctx.node_path, attempt) in ctx.resume_inputs:
        attempt += 1
    if attempt > 1:
        answered = auth_request_id(ctx.node_path, attempt - 1)
        invocation = ctx.invocation_context
        request = calling_event(invocation.session.events, answered)
        if request is not None:
            await _auth.store_answer(invocation, request, answered, ctx.resume_inputs[answered])
    return attempt


def credential_request_event(request: AuthConfig, ctx: NodeContext, attempt: int) -> Event:
    """The node's ``adk_request_credential`` call for ``request``, its run's ``attempt``-th.

    ``request`` is already without secrets (``AuthHandler.generate_auth_request``'s).
    """
    from adk_runtime.agents import _auth

    request_id = auth_request_id(ctx.node_path, attempt)
    return _auth.credential_request(request, request_id, _message(request))


def _message(auth_config: AuthConfig) -> str:
    """What the client may show the user: which credential the step waits for."""
    from adk_runtime.auth.auth_credential import AuthCredentialTypes

    raw = auth_config.raw_auth_credential
    kind: Any = raw.auth_type if raw is not None else None
    if kind == AuthCredentialTypes.API_KEY:
        name = getattr(auth_config.auth_scheme, "name", None) or "the service"
        return f"This step needs an API key ({name}) to go on."
    if kind in (AuthCredentialTypes.OAUTH2, AuthCredentialTypes.OPEN_ID_CONNECT):
        return "This step needs you to sign in: open the request's authorization URI."
    return "This step needs a credential to go on."
