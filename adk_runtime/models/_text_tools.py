"""Function calling written in text, for models that take no tools (Gemma 3).

Such a model is told its functions in the instruction, as JSON declarations, and answers a
call with a JSON object. :func:`tools_as_text` rewrites a request that way (the calls and
results already in the conversation become text too, in that same form) and
:func:`call_from_text` turns a reply that is such an object back into a function call.
Only a call to a declared function is taken: a JSON answer that merely has a ``name`` key
stays text.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

from google.genai import types

from adk_runtime.errors import UnsupportedFeatureError
from adk_runtime.models._litellm_convert import function_declaration_to_tool
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.models.llm_response import LlmResponse

__all__ = ["call_from_text", "tools_as_text"]

logger = logging.getLogger(__name__)

_HOW_TO_CALL = (
    "To call one of them, answer with this JSON object alone, with no other text: "
    '{"name": "<the function\'s name>", "parameters": {"<argument>": <value>, ...}}. '
    "Its result comes back to you in the next message."
)
_NAME_KEYS = ("name", "function")
_ARGUMENT_KEYS = ("parameters", "args", "arguments")


def tools_as_text(request: LlmRequest, model: str) -> tuple[LlmRequest, frozenset[str]]:
    """A copy of ``request`` with its functions described in the instruction, no tools.

    Function calls and responses in the contents become text parts (the calls as the JSON
    the model is told to answer with).

    Args:
        request: The request the agent built; left unchanged.
        model: The model's name, for the error.

    Returns:
        The rewritten request, and the names of the functions it declares.

    Raises:
        UnsupportedFeatureError: The request has a tool other than function declarations
            (a built-in tool such as ``google_search``), which such a model cannot use.
    """
    declarations = list(_declarations(request.config.tools or [], model))
    config = request.config.model_copy(update={"tools": None, "tool_config": None})
    rewritten = request.model_copy(
        update={
            "contents": [c for c in map(_as_text, request.contents) if c.parts],
            "config": config,
        }
    )
    if declarations:
        listing = ",\n".join(json.dumps(d, ensure_ascii=False) for d in declarations)
        rewritten.append_instructions(
            [f"You can call these functions (JSON declarations):\n[\n{listing}\n]\n{_HOW_TO_CALL}"]
        )
    return rewritten, frozenset(d["name"] for d in declarations)


def call_from_text(response: LlmResponse, names: frozenset[str]) -> None:
    """Make a complete reply that is a JSON call to one of ``names`` that function call.

    The reply's single text part is replaced by the call; the last such object in the text
    is taken (a fenced code block around it is fine). Partial replies, replies of several
    parts, and text that calls no declared function are left as they are.
    """
    content = response.content
    if response.partial or not names or content is None or len(content.parts or []) != 1:
        return
    text = content.parts[0].text  # type: ignore[index]
    if not text or not any(name in text for name in names):
        return
    for candidate in reversed(list(_json_objects(text))):
        call = _as_call(candidate, names)
        if call is not None:
            content.parts = [types.Part(function_call=call)]
            return
    logger.debug("A reply named a declared function but held no call to it; left as text.")


def _declarations(tools: list[Any], model: str) -> Iterator[dict[str, Any]]:
    for tool in tools:
        if not isinstance(tool, types.Tool):
            raise UnsupportedFeatureError(f"{model} takes function tools only, not {tool!r}.")
        extra = [
            name for name, value in tool if value is not None and name != "function_declarations"
        ]
        if extra:
            raise UnsupportedFeatureError(
                f"{model} cannot use built-in tools ({', '.join(extra)}): it calls functions "
                "written in text. Give the agent function tools only."
            )
        for declaration in tool.function_declarations or []:
            yield function_declaration_to_tool(declaration)["function"]


def _as_text(content: types.Content) -> types.Content:
    """``content`` with its function calls and responses as text (role model / user)."""
    parts = content.parts or []
    if not any(part.function_call or part.function_response for part in parts):
        return content
    role = content.role
    rewritten: list[types.Part] = []
    for part in parts:
        if part.function_call is not None:
            role = "model"
            rewritten.append(types.Part(text=_call_text(part.function_call)))
        elif part.function_response is not None:
            role = "user"
            rewritten.append(types.Part(text=_result_text(part.function_response)))
        else:
            rewritten.append(part)
    return types.Content(role=role, parts=rewritten)


def _call_text(call: types.FunctionCall) -> str:
    return json.dumps({"name": call.name, "parameters": call.args or {}}, ensure_ascii=False)


def _result_text(response: types.FunctionResponse) -> str:
    result = json.dumps(response.response or {}, ensure_ascii=False, default=str)
    return f"The function {response.name} returned: {result}"


def _json_objects(text: str) -> Iterator[Any]:
    """The JSON objects in ``text`` outside one another, in order."""
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start != -1:
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            start = text.find("{", start + 1)
            continue
        yield value
        start = text.find("{", end)


def _as_call(candidate: Any, names: frozenset[str]) -> types.FunctionCall | None:
    if not isinstance(candidate, dict):
        return None
    name = next((candidate[k] for k in _NAME_KEYS if k in candidate), None)
    arguments: Any = next((candidate[k] for k in _ARGUMENT_KEYS if k in candidate), {})
    if not isinstance(name, str) or name not in names or not isinstance(arguments, dict):
        return None
    return types.FunctionCall(name=name, args=arguments)
