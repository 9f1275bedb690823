"""What an LLM agent's optional fields add to each model step.

The request side: ``global_instruction`` (the root agent's), ``static_instruction``,
``output_schema``, the ``planner`` and the ``code_executor``; the response side: the
planner's rewrite of a complete response. ``_llm_flow`` calls these with a few lines each.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from google.genai import types

from adk_runtime.agents import _structured_output
from adk_runtime.agents._instructions import static_parts
from adk_runtime.core._instructions import render_instruction
from adk_runtime.core.callback_context import CallbackContext
from adk_runtime.core.invocation_context import InvocationContext
from adk_runtime.core.readonly_context import ReadonlyContext
from adk_runtime.events import Event
from adk_runtime.models.llm_request import LlmRequest

if TYPE_CHECKING:
    from adk_runtime.agents.llm_agent import LlmAgent

__all__ = [
    "add_instructions",
    "apply_code_executor",
    "apply_planner",
    "finish_request",
    "planned_parts",
    "process_response",
    "remove_thoughts",
]

_DYNAMIC_LABEL = (
    "Your instructions for this turn follow (from the application, not a message from the user):\n"
)


async def add_instructions(
    agent: LlmAgent, ctx: InvocationContext, request: LlmRequest
) -> list[types.Content]:
    """Fill the system instruction; return the contents that go into the conversation.

    The system instruction is the root agent's ``global_instruction``, then the agent's
    ``static_instruction`` (its text, verbatim), then its ``instruction`` — unless there is
    a static instruction: then the rendered ``instruction`` is sent as user-side content right
    before the latest user turn, so the system part stays the same from step to step (what
    context caching needs), as google-adk does. Non-text parts of a static instruction go
    there too.
    """
    context = ReadonlyContext(ctx)
    root = agent.root_agent
    global_instruction = getattr(root, "global_instruction", "")
    if global_instruction:
        request.append_instructions([await render_instruction(global_instruction, context)])
    extra: list[types.Content] = []
    if agent.static_instruction:
        parts = static_parts(agent.static_instruction)
        request.append_instructions([part.text for part in parts if part.text])
        others = [part for part in parts if not part.text]
        if others:
            extra.append(types.Content(role="user", parts=others))
    if agent.instruction:
        text = await render_instruction(agent.instruction, context)
        if agent.static_instruction:
            extra.append(types.Content(role="user", parts=[types.Part(text=_DYNAMIC_LABEL + text)]))
        else:
            request.append_instructions([text])
    return extra


def finish_request(
    agent: LlmAgent, ctx: InvocationContext, extra: list[types.Content], request: LlmRequest
) -> None:
    """Place the instruction contents; apply the output schema, planner and code executor."""
    _insert_before_last_user_turn(request, extra)
    apply_planner(agent, ctx, request)
    apply_code_executor(agent, request)
    _structured_output.prepare_request(agent, request)  # last, as in google-adk


def apply_planner(agent: LlmAgent, ctx: InvocationContext, request: LlmRequest) -> None:
    """Let the agent's planner shape the request.

    A ``BuiltInPlanner`` sets the thinking config; another planner adds its planning
    instruction, and the thought flags are taken off the contents (copies: the session's
    events keep theirs), since its own "thoughts" are plain text the model must see.
    """
    from adk_runtime.planners.built_in_planner import BuiltInPlanner

    planner = agent.planner
    if isinstance(planner, BuiltInPlanner):
        planner.apply_thinking_config(request)
    elif planner is not None:
        text = planner.build_planning_instruction(ReadonlyContext(ctx), request)
        if text:
            request.append_instructions([text])
        remove_thoughts(request)


def remove_thoughts(request: LlmRequest) -> None:
    """Take the thought flags off the request's contents (copies: the events keep theirs)."""
    request.contents = [_without_thoughts(content) for content in request.contents]


def apply_code_executor(agent: LlmAgent, request: LlmRequest) -> None:
    """Declare Gemini's code execution tool for a ``BuiltInCodeExecutor``."""
    from adk_runtime.code_executors.built_in_code_executor import BuiltInCodeExecutor

    if isinstance(agent.code_executor, BuiltInCodeExecutor):
        agent.code_executor.process_llm_request(request)


def process_response(agent: LlmAgent, event: Event, callback_context: CallbackContext) -> None:
    """Let the planner rewrite a complete model response's parts (state rides on the event)."""
    if event.content is None:
        return
    parts = planned_parts(agent, event.content, callback_context)
    if parts:
        event.content = event.content.model_copy(update={"parts": parts})


def planned_parts(
    agent: LlmAgent, content: types.Content, callback_context: CallbackContext
) -> list[types.Part] | None:
    """The planner's rewrite of a model response's parts; None when there is none.

    A ``BuiltInPlanner`` leaves responses alone (the model thinks on its side) unless a
    subclass overrides ``process_planning_response``.
    """
    from adk_runtime.planners.built_in_planner import BuiltInPlanner

    planner = agent.planner
    if planner is None or not content.parts:
        return None
    if isinstance(planner, BuiltInPlanner) and (
        type(planner).process_planning_response is BuiltInPlanner.process_planning_response
    ):
        return None
    return planner.process_planning_response(callback_context, list(content.parts))


def _insert_before_last_user_turn(request: LlmRequest, extra: list[types.Content]) -> None:
    if not extra:
        return
    # Before the user's latest messages, but never between a function call and its response:
    # a user content holding a function response ends the walk back (the instruction then
    # follows the response, as the model continues its tool-call turn).
    contents = request.contents
    index = len(contents)
    while index > 0 and contents[index - 1].role == "user":
        if any(part.function_response for part in contents[index - 1].parts or []):
            break
        index -= 1
    if index == len(contents):  # the conversation does not end with the user: append
        request.contents = [*contents, *extra]
        return
    request.contents = [*contents[:index], *extra, *contents[index:]]


def _without_thoughts(content: types.Content) -> types.Content:
    """A copy without thought flags (the stored events keep theirs)."""
    parts = content.parts or []
    if not any(part.thought for part in parts):
        return content
    return content.model_copy(
        update={"parts": [part.model_copy(update={"thought": None}) for part in parts]}
    )
