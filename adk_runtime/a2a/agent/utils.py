"""Running the request and card interceptors of a RemoteA2aAgent."""

from __future__ import annotations

from typing import Any

from adk_runtime.a2a import _compat
from adk_runtime.a2a.agent.config import (
    CardRequestInterceptor,
    ParametersConfig,
    RequestInterceptor,
)
from adk_runtime.core.invocation_context import InvocationContext
from adk_runtime.events import Event

__all__ = [
    "execute_after_request_interceptors",
    "execute_before_card_request_interceptors",
    "execute_before_request_interceptors",
]


async def execute_before_card_request_interceptors(
    card_request_interceptors: list[CardRequestInterceptor] | None,
    ctx: InvocationContext | None,
) -> dict[str, Any] | None:
    """``{"headers": ...}`` for the card fetch (later interceptors win), or None."""
    headers: dict[str, str] = {}
    if ctx is None:  # no invocation to take headers from
        return None
    for interceptor in card_request_interceptors or []:
        if interceptor.before_request is None:
            continue
        config = await interceptor.before_request(ctx)
        if config is not None and config.headers:
            headers.update(config.headers)
    return {"headers": headers} if headers else None


async def execute_before_request_interceptors(
    request_interceptors: list[RequestInterceptor] | None,
    ctx: InvocationContext,
    a2a_request: Any,
) -> tuple[Any, ParametersConfig]:
    """Run the ``before_request`` hooks in order.

    Returns:
        ``(message, parameters)``, or ``(event, parameters)`` when a hook answered with an
        event (the later hooks do not run). The parameters start with a call context
        holding a copy of the session state.
    """
    state = dict(ctx.session.state)
    params = ParametersConfig(client_call_context=_compat.ClientCallContext(state=state))
    for interceptor in request_interceptors or []:
        if not interceptor.before_request:
            continue
        result, params = await interceptor.before_request(ctx, a2a_request, params)
        if isinstance(result, Event):
            return result, params
        a2a_request = result
    return a2a_request, params


async def execute_after_request_interceptors(
    request_interceptors: list[RequestInterceptor] | None,
    ctx: InvocationContext,
    a2a_response: Any,
    event: Event,
) -> Event | None:
    """Run the ``after_request`` hooks, last first; None as soon as one drops the event."""
    for interceptor in reversed(request_interceptors or []):
        if not interceptor.after_request:
            continue
        result = await interceptor.after_request(ctx, a2a_response, event)
        if not result:
            return None
        event = result
    return event
