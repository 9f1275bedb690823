"""``google.adk.flows.llm_flows.functions`` → here: the ids the runtime gives function calls.

A model may return function calls without ids; the runtime then mints one (prefixed
:data:`AF_FUNCTION_CALL_ID_PREFIX`) so the response can be paired with its call, and strips
those ids again from what it sends to the model. The rest of google-adk's module (running the
calls, merging their responses) is internal to the flow; here that is
``adk_runtime.agents._functions``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from google.genai import types

from adk_runtime.agents._auth import (
    REQUEST_EUC_FUNCTION_CALL_NAME,
    build_auth_request_event,
    generate_auth_event,
)
from adk_runtime.agents._confirmation import (
    REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
    generate_request_confirmation_event,
)
from adk_runtime.agents._functions import assign_call_ids
from adk_runtime.events import Event
from adk_runtime.models._call_ids import CLIENT_CALL_ID_PREFIX
from adk_runtime.platform import uuid as platform_uuid
from adk_runtime.tools.base_tool import BaseTool

__all__ = [
    "AF_FUNCTION_CALL_ID_PREFIX",
    "REQUEST_CONFIRMATION_FUNCTION_CALL_NAME",
    "REQUEST_EUC_FUNCTION_CALL_NAME",
    "build_auth_request_event",
    "generate_auth_event",
    "generate_client_function_call_id",
    "generate_request_confirmation_event",
    "get_long_running_function_calls",
    "populate_client_function_call_id",
    "remove_client_function_call_id",
]

AF_FUNCTION_CALL_ID_PREFIX = CLIENT_CALL_ID_PREFIX


def generate_client_function_call_id() -> str:
    """A new runtime-minted function-call id (``adk-`` and a random UUID)."""
    return AF_FUNCTION_CALL_ID_PREFIX + platform_uuid.new_uuid()


def populate_client_function_call_id(model_response_event: Event) -> None:
    """Give each function call of the event that has no id a runtime-minted one (in place)."""
    assign_call_ids(model_response_event)


def remove_client_function_call_id(content: types.Content | None) -> None:
    """Clear the runtime-minted ids of the content's function calls and responses (in place).

    Ids the model issued itself are kept.
    """
    for part in (content.parts if content else None) or []:
        for item in (part.function_call, part.function_response):
            if item is not None and item.id and item.id.startswith(AF_FUNCTION_CALL_ID_PREFIX):
                item.id = None


def get_long_running_function_calls(
    function_calls: Iterable[types.FunctionCall], tools_dict: Mapping[str, BaseTool]
) -> set[str]:
    """The ids of the calls that go to long-running tools."""
    ids: set[str] = set()
    for call in function_calls:
        tool = tools_dict.get(call.name or "")
        if call.id and tool is not None and tool.is_long_running:
            ids.add(call.id)
    return ids
