"""Check the client's answers to the runtime's own calls before the user's message is stored.

A confirmation or credential answer the agent would refuse must not be committed: the
Runner calls :func:`check_client_answers` with the message it is about to store, and a
refused answer raises :class:`InputValidationError` with nothing written.
"""

from __future__ import annotations

from adk_runtime.agents._auth import REQUEST_EUC_FUNCTION_CALL_NAME, check_credential_answers
from adk_runtime.agents._confirmation import (
    REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
    check_confirmation_answers,
)
from adk_runtime.agents._input_requests import check_input_answers
from adk_runtime.agents.base_agent import BaseAgent
from adk_runtime.agents.invocation_context import InvocationContext
from adk_runtime.agents.llm_agent import LlmAgent
from adk_runtime.errors import InputValidationError
from adk_runtime.events import Event
from adk_runtime.workflow._interrupts import check_node_message
from adk_runtime.workflow._root import NodeAgent

__all__ = ["check_client_answers"]

_CLIENT_CALLS = frozenset({REQUEST_CONFIRMATION_FUNCTION_CALL_NAME, REQUEST_EUC_FUNCTION_CALL_NAME})


async def check_client_answers(agent: BaseAgent, ctx: InvocationContext, message: Event) -> None:
    """Raise unless every answer in ``message`` would be accepted by ``agent``, the one to run.

    Raises:
        InputValidationError: An answer is malformed, names no request of ``agent``, or does
            not match the stored request (see the confirmation and credential flows), or
            answers an input request under another name; to a workflow node, answers
            mixed with text, answering no call, or calls of several invocations.
    """
    check_input_answers(ctx, message)
    if isinstance(agent, NodeAgent):  # a workflow node at the root
        check_node_message(ctx.session.events, message)
    answered = sorted(
        name
        for name in {response.name for response in message.get_function_responses()}
        if name in _CLIENT_CALLS
    )
    if not answered:
        return
    if not isinstance(agent, LlmAgent):
        raise InputValidationError(
            f"The message answers {answered} but agent {agent.name!r}, "
            "which would receive it, asked for none."
        )
    await check_confirmation_answers(agent, ctx, message)
    check_credential_answers(agent, ctx, message)
