"""A node's questions to the user (``yield RequestInput(...)``) and the answers, from the log.

A node that yields a ``RequestInput`` commits a long-running ``adk_request_input`` function
call (id: the request's ``interrupt_id``) stamped with the node's path. The node's run ends
there without an output, nothing downstream of it runs, and the invocation pauses once the
rest of the graph has nothing left to do. The user answers in a later message with a
``FunctionResponse`` named ``adk_request_input`` with that id; the Runner runs the paused
invocation again, and the workflow continues from its log (see ``_run.History``): a node with
``rerun_on_resume=False`` completes with the answer as its output; one with
``rerun_on_resume=True`` runs again with the answers in ``ctx.resume_inputs``.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from adk_runtime.agents._generator_tools import TASK_QUESTION_PREFIX, is_task_question, run_caller
from adk_runtime.agents._generator_tools import request_event as _call_event
from adk_runtime.errors import InputValidationError
from adk_runtime.events.request_input import RequestInput
from adk_runtime.platform import uuid as platform_uuid

if TYPE_CHECKING:
    from adk_runtime.events.event import Event

__all__ = [
    "TASK_QUESTION_PREFIX",
    "check_node_message",
    "interrupt_ids",
    "is_task_question",
    "node_request_id",
    "request_event",
    "task_question",
    "waiting_task_question",
]


def node_request_id(prefix: str, node_path: str) -> str:
    """The id of a request the node run at ``node_path`` makes: ``<prefix><path>``.

    A path over 100 characters is replaced by its SHA-256, so the id stays short and the
    same for that run.
    """
    where = node_path if len(node_path) <= 100 else hashlib.sha256(node_path.encode()).hexdigest()
    return prefix + where


def request_event(request: RequestInput) -> Event:
    """The event of a node's ``RequestInput``: a long-running ``adk_request_input`` call."""
    return _call_event(request)


def interrupt_ids(event: Event) -> list[str]:
    """The ids of the calls ``event`` waits on the user for (its long-running calls).

    A node's ``RequestInput``, and an agent node's long-running tool calls.
    """
    long_running = event.long_running_tool_ids or set()
    return [call.id for call in event.get_function_calls() if call.id and call.id in long_running]


def check_node_message(events: list[Event], message: Event) -> None:
    """Refuse (before it is stored) a message to a root node that answers calls wrongly.

    Raises:
        InputValidationError: The message mixes answers (function responses) and text, an
            answer matches no call of the session, or the answers belong to calls of
            different invocations.
    """
    responses = message.get_function_responses()
    if not responses:
        return
    parts = message.content.parts or [] if message.content is not None else []
    if any(part.text for part in parts):
        raise InputValidationError(
            "A message cannot contain both function responses and text: send the answers "
            "alone, then the text."
        )
    owners = {
        call.id: event.invocation_id
        for event in events
        if event.author != "user"
        for call in event.get_function_calls()
        if call.id
    }
    invocations = set()
    for response in responses:
        if response.id not in owners:
            raise InputValidationError(
                f"Function call not found for function response {response.id!r} "
                f"({response.name!r}): answer a call of this session."
            )
        invocations.add(owners[response.id])
    if len(invocations) > 1:
        raise InputValidationError(
            "The function responses resolve to multiple invocations: answer the calls of one "
            "invocation per message."
        )


def task_question(text: str | None) -> Event:
    """The question of a task agent node that ended without finishing: it waits for the user.

    A long-running ``adk_request_input`` call (id ``wf_task_input:<uuid>``, its message the
    agent's text; None when it said nothing). The user replies with a plain message (the
    Runner commits it on the node's path and branch: see :func:`waiting_task_question`) or
    answers the call like any node's question.
    """
    request = RequestInput(
        interrupt_id=TASK_QUESTION_PREFIX + platform_uuid.new_uuid(), message=text
    )
    return request_event(request)


def waiting_task_question(events: list[Event]) -> Event | None:
    """The event of the task agent node's question a plain message replies to, if one waits.

    A question waits until a function response answers it (the user's, or the one an
    aborted invocation seals it with) or a user message is committed on its node's path (a
    reply). The questions of a tool call's own run (a node tool's workflow) are not these:
    a function response answers them.

    Raises:
        InputValidationError: Task nodes of two runs wait at once: the message cannot say
            which it replies to.
    """
    waiting: dict[str, tuple[str, Event]] = {}  # node path → (question's call id, event)
    for event in events:
        if run_caller(event) is not None:
            continue  # a tool call's own run: its questions are answered by function response
        responses = event.get_function_responses()
        if responses:
            answered = {response.id for response in responses}
            waiting = {path: asked for path, asked in waiting.items() if asked[0] not in answered}
        if event.author == "user" and event.node_info.path and not responses:
            waiting.pop(event.node_info.path, None)
        for call in event.get_function_calls():
            if is_task_question(call):
                waiting[event.node_info.path] = (call.id or "", event)
    if len(waiting) > 1:
        raise InputValidationError(
            f"{len(waiting)} task agent nodes wait for the user's reply: answer the one "
            "meant with a FunctionResponse to its adk_request_input call."
        )
    return next((event for _, event in waiting.values()), None)
