"""``google.adk.tools._request_input_tool`` → here: a tool for asking the user a question.

``request_input`` is a long-running function tool named ``adk_request_input``: the model
calls it with the question (and, optionally, a JSON Schema of the answer it expects); the
call returns nothing, so the invocation pauses, and the user's answer comes back as the
call's ``FunctionResponse`` (``Runner.run_async`` resumes the invocation with it, as for any
long-running tool).
"""

from __future__ import annotations

from typing import Any

from adk_runtime.tools.long_running_tool import LongRunningFunctionTool

__all__ = ["REQUEST_INPUT_FUNCTION_CALL_NAME", "request_input"]

REQUEST_INPUT_FUNCTION_CALL_NAME = "adk_request_input"


def adk_request_input(message: str, response_schema: dict[str, Any] | None = None) -> None:
    """Ask the user a question and wait for their response.

    Call it when something must be clarified or more information is needed before going on.
    The user's reply is the result of this call.

    Args:
        message: What to ask the user.
        response_schema: A JSON Schema of the answer wanted: ``{"type": "string"}`` for
            free text, ``{"type": "boolean"}`` for yes or no, an object schema for several
            fields.
    """
    del message, response_schema  # the question travels in the call itself
    return None


request_input = LongRunningFunctionTool(adk_request_input)
