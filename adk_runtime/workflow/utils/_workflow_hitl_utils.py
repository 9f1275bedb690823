"""Answering a workflow node's question (google-adk's ``workflow.utils._workflow_hitl_utils``).

A node's ``RequestInput`` reaches the client as an ``adk_request_input`` function call whose
id is the request's ``interrupt_id``; these helpers find such calls and build the answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from google.genai import types

from adk_runtime.events.event import Event
from adk_runtime.tools._request_input_tool import REQUEST_INPUT_FUNCTION_CALL_NAME

__all__ = [
    "REQUEST_INPUT_FUNCTION_CALL_NAME",
    "create_request_input_response",
    "get_request_input_interrupt_ids",
    "has_request_input_function_call",
]


def create_request_input_response(interrupt_id: str, response: Mapping[str, Any]) -> types.Part:
    """The part answering request ``interrupt_id`` with ``response`` (send it as the user)."""
    return types.Part(
        function_response=types.FunctionResponse(
            id=interrupt_id, name=REQUEST_INPUT_FUNCTION_CALL_NAME, response=dict(response)
        )
    )


def get_request_input_interrupt_ids(event: Event) -> list[str]:
    """The ids of the input requests ``event`` makes."""
    return [
        call.id
        for call in event.get_function_calls()
        if call.id and call.name == REQUEST_INPUT_FUNCTION_CALL_NAME
    ]


def has_request_input_function_call(event: Event) -> bool:
    """Whether ``event`` asks the user for input."""
    return bool(get_request_input_interrupt_ids(event))
