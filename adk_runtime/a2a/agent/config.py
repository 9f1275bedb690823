"""How a RemoteA2aAgent converts responses and what runs around each request."""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from adk_runtime.a2a import _compat
from adk_runtime.a2a.converters.part_converter import (
    A2APartToGenAIPartConverter,
    convert_a2a_part_to_genai_part,
)
from adk_runtime.a2a.converters.to_adk_event import (
    A2AArtifactUpdateToEventConverter,
    A2AMessageToEventConverter,
    A2AStatusUpdateToEventConverter,
    A2ATaskToEventConverter,
    convert_a2a_artifact_update_to_event,
    convert_a2a_message_to_event,
    convert_a2a_status_update_to_event,
    convert_a2a_task_to_event,
)
from adk_runtime.core.invocation_context import InvocationContext
from adk_runtime.events import Event

__all__ = [
    "A2aCardRequestConfig",
    "A2aRemoteAgentConfig",
    "CardRequestInterceptor",
    "ParametersConfig",
    "RequestInterceptor",
]


class ParametersConfig(BaseModel):
    """What goes with one ``send_message`` call besides the message."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    request_metadata: dict[str, Any] | None = None
    client_call_context: _compat.ClientCallContext | None = None


class RequestInterceptor(BaseModel):
    """Hooks around each request to the remote agent.

    Attributes:
        before_request: ``(ctx, message, parameters) -> (message or Event, parameters)``; an
            ``Event`` returned instead of the message is yielded and the request not sent.
            Interceptors run in list order.
        after_request: ``(ctx, a2a_response, event) -> Event | None``; None drops the
            event. Interceptors run in reverse list order.
    """

    before_request: (
        Callable[
            [InvocationContext, Any, ParametersConfig],
            Awaitable[tuple[Any, ParametersConfig]],
        ]
        | None
    ) = None
    after_request: Callable[[InvocationContext, Any, Event], Awaitable[Event | None]] | None = None


class A2aCardRequestConfig(BaseModel):
    """Extra HTTP headers for fetching a remote agent card."""

    headers: dict[str, str] | None = None


class CardRequestInterceptor(BaseModel):
    """A hook giving the headers of an agent card fetch from an ``http(s)`` URL."""

    before_request: Callable[[InvocationContext], Awaitable[A2aCardRequestConfig]] | None = None


class A2aRemoteAgentConfig(BaseModel):
    """The converters and interceptors of a RemoteA2aAgent.

    The converters are used for responses of peers speaking google-adk's newer A2A
    integration (the ``adk-docs/a2a/a2a-extension`` marker in their metadata).

    Attributes:
        forward_session_id_as_context_id: With no A2A context yet, ``True`` sends the
            session id as the context id, ``"namespaced"`` a digest of app, user and
            session (so two users' sessions never share a remote context).
    """

    a2a_message_converter: A2AMessageToEventConverter = convert_a2a_message_to_event
    a2a_task_converter: A2ATaskToEventConverter = convert_a2a_task_to_event
    a2a_status_update_converter: A2AStatusUpdateToEventConverter = (
        convert_a2a_status_update_to_event
    )
    a2a_artifact_update_converter: A2AArtifactUpdateToEventConverter = (
        convert_a2a_artifact_update_to_event
    )
    a2a_part_converter: A2APartToGenAIPartConverter = convert_a2a_part_to_genai_part
    request_interceptors: list[RequestInterceptor] | None = None
    card_request_interceptors: list[CardRequestInterceptor] | None = None
    forward_session_id_as_context_id: bool | Literal["namespaced"] = False

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> A2aRemoteAgentConfig:
        # Functions are shared; everything else (interceptor lists included) is copied.
        memo = {} if memo is None else memo
        values = {
            key: value if callable(value) else copy.deepcopy(value, memo)
            for key, value in self.__dict__.items()
            if not key.startswith("_")
        }
        result = type(self).model_construct(None, **values)
        memo[id(self)] = result
        return result
