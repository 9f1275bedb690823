"""A model turn that stopped without saying anything is an error, not a blank answer.

:meth:`LlmResponse.create` keeps a reply that finished with ``STOP`` and no parts, since a
stream may end with such a chunk; the agent's flow calls :func:`flag_empty_reply` on each
complete reply (after the after-model callbacks) to tell the user, as google-adk 2.13 does.
"""

from __future__ import annotations

from google.genai import types

from adk_runtime.features import FeatureName, is_feature_enabled
from adk_runtime.models.llm_response import LlmResponse

__all__ = ["EMPTY_REPLY_ERROR_CODE", "flag_empty_reply", "says_something"]

EMPTY_REPLY_ERROR_CODE = "MODEL_RETURNED_NO_CONTENT"
"""The ``error_code`` of such a reply (google-adk's code, so clients can match it)."""


def says_something(response: LlmResponse) -> bool:
    """Whether the reply holds anything to act on.

    That is a function call or response, code or its result, inline or file data, or text
    that is neither a thought nor blank.
    """
    parts = response.content.parts if response.content else None
    return any(_says_something(part) for part in parts or [])


def _says_something(part: types.Part) -> bool:
    if part.text is not None and not part.thought and part.text.strip():
        return True
    return any(
        value is not None
        for value in (
            part.function_call,
            part.function_response,
            part.executable_code,
            part.code_execution_result,
            part.inline_data,
            part.file_data,
        )
    )


def flag_empty_reply(response: LlmResponse, *, streamed: bool) -> None:
    """Make a complete ``STOP`` reply that says nothing an error reply, in place.

    A streamed (SSE) reply is judged only when the stream was aggregated progressively and
    the reply has parts: an empty final chunk ends a stream normally, and without
    progressive aggregation a thought-only reply may come before a function call.
    """
    if (
        response.partial
        or response.error_code is not None
        or response.finish_reason != types.FinishReason.STOP
        or says_something(response)
    ):
        return
    has_parts = bool(response.content and response.content.parts)
    progressive = is_feature_enabled(FeatureName.PROGRESSIVE_SSE_STREAMING)
    if streamed and not (has_parts and progressive):
        return
    response.error_code = EMPTY_REPLY_ERROR_CODE
    response.error_message = response.error_message or (
        "The model finished its turn (STOP) with only thoughts or blank text, and no answer."
        if has_parts
        else "The model finished its turn (STOP) without any content."
    )
