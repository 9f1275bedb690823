"""``output_schema``: ask the model for structured output, validate it, store it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from google.genai import types

from adk_runtime.core.invocation_context import InvocationContext
from adk_runtime.events import Event
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.tools.set_model_response_tool import (
    SetModelResponseTool,
    validate_output,
)

if TYPE_CHECKING:
    from adk_runtime.agents.llm_agent import LlmAgent

__all__ = [
    "answer_event",
    "offer_answer_tool",
    "prepare_request",
    "save_output",
    "set_response_schema",
]

_WITH_TOOLS_INSTRUCTION = (
    f"Your final answer must be given by calling `{SetModelResponseTool.NAME}` with the "
    "required structure, not as text. Use the other tools first if you need them."
)


def prepare_request(agent: LlmAgent, request: LlmRequest) -> None:
    """Put the agent's ``output_schema`` on the request.

    The schema becomes the request's ``response_schema`` (JSON output) when the agent has no
    tools, or its model pairs a response schema with tools
    (``capabilities.output_schema_and_tools``); otherwise the model is offered
    ``set_model_response``.
    """
    set_response_schema(agent, request)
    offer_answer_tool(agent, request)


def schema_with_tools(agent: LlmAgent) -> bool:
    """Whether the agent's model takes its response schema together with its tools."""
    return agent.canonical_model.capabilities.output_schema_and_tools


def set_response_schema(agent: LlmAgent, request: LlmRequest) -> None:
    """Ask the model for JSON in the agent's ``output_schema`` (see :func:`prepare_request`)."""
    if agent.mode == "task":  # the result comes through finish_task, in that schema
        return
    if agent.output_schema is not None and (not agent.tools or schema_with_tools(agent)):
        request.set_output_schema(agent.output_schema)


def offer_answer_tool(agent: LlmAgent, request: LlmRequest) -> None:
    """An agent with ``output_schema`` and tools: offer ``set_model_response`` for the answer.

    Done once per request: a request that already offers the tool is left as it is.
    """
    schema = agent.output_schema
    if agent.mode == "task" or schema is None or not agent.tools:
        return
    if SetModelResponseTool.NAME in request.tools_dict:
        return
    if schema_with_tools(agent):  # the schema went on the request itself
        return
    request.append_tools([SetModelResponseTool(schema)])
    request.append_instructions([_WITH_TOOLS_INSTRUCTION])


def save_output(agent: LlmAgent, event: Event) -> None:
    """``output_key``: put the agent's final answer in ``event``'s state delta.

    Only a final response of ``agent`` itself with text parts counts (thoughts left out); with
    ``output_schema`` the text is validated and the parsed value stored, and an empty last
    chunk of a stream is not an answer.

    Raises:
        pydantic.ValidationError: The answer does not follow ``output_schema``.
    """
    key = agent.output_key
    if not key or event.author != agent.name or not event.is_final_response():
        return
    if agent.mode == "task":  # its text is talk with the user; finish_task gives the result
        return
    parts = (event.content.parts or []) if event.content is not None else []
    if not any(part.text is not None for part in parts):
        return
    text = "".join(part.text for part in parts if part.text and not part.thought)
    schema = agent.output_schema
    if schema is None:
        event.actions.state_delta[key] = text
    elif text.strip():
        event.actions.state_delta[key] = validate_output(schema, text)


def answer_event(
    agent: LlmAgent,
    ctx: InvocationContext,
    call_event: Event,
    response_event: Event,
    tools: dict[str, Any],
) -> Event | None:
    """The final model event for a successful ``set_model_response`` call, else None."""
    tool = tools.get(SetModelResponseTool.NAME)
    if not isinstance(tool, SetModelResponseTool):
        return None
    calls = {call.id: call for call in call_event.get_function_calls()}
    for response in response_event.get_function_responses():
        if response.name != SetModelResponseTool.NAME:
            continue
        call = calls.get(response.id)
        if call is None:
            return None
        answer = tool.answer_json(dict(call.args or {}), dict(response.response or {}))
        if answer is None:
            return None
        return Event(
            invocation_id=ctx.invocation_id,
            author=agent.name,
            branch=ctx.branch,
            content=types.Content(role="model", parts=[types.Part(text=answer)]),
        )
    return None
