"""``google.adk.flows.llm_flows.contents`` → here: the conversation step of a request.

The contents are what the LLM flow sends (``adk_runtime.agents._llm_flow.conversation``):
the session's history as the agent sees it (its branch; other agents' turns retold as
context; function responses right after their calls; compaction summaries in place of the
events they cover), with ``RunConfig.model_input_context`` before the user's message.
Contents already on the request (an instruction the instructions step left there) are kept
and placed right before the latest user turn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from adk_runtime.agents import _call_history, _confirmation, _contents, _llm_flow, _step_hooks
from adk_runtime.flows.llm_flows._base_llm_processor import _Filler, llm_agent_of

if TYPE_CHECKING:
    from google.genai import types

    from adk_runtime.core.invocation_context import InvocationContext
    from adk_runtime.events import Event
    from adk_runtime.models.llm_request import LlmRequest

__all__ = ["request_processor"]


class _ContentLlmRequestProcessor(_Filler):
    """Replaces the request's contents with the conversation the agent's model is sent."""

    name = "contents"

    async def _fill(self, invocation_context: InvocationContext, llm_request: LlmRequest) -> None:
        agent = llm_agent_of(invocation_context)
        carried = list(llm_request.contents)
        # A request continuing an interaction (the interactions step ran) sends its turn only.
        llm_request.contents = _llm_flow.conversation(
            agent,
            invocation_context,
            current_turn_only=llm_request.previous_interaction_id is not None,
        )
        await _add_instructions_to_user_content(invocation_context, llm_request, carried)


async def _add_instructions_to_user_content(
    invocation_context: InvocationContext,
    llm_request: LlmRequest,
    instruction_contents: list[types.Content],
) -> None:
    """Place ``instruction_contents`` right before the trailing user turns of the request.

    When the contents do not end with a user turn they are appended at the end.
    """
    _step_hooks._insert_before_last_user_turn(llm_request, instruction_contents)


request_processor = _ContentLlmRequestProcessor()


def _get_contents(
    current_branch: str | None,
    events: list[Event],
    agent_name: str = "",
    *,
    preserve_function_call_ids: bool = False,
    include_thoughts_from_other_agents: bool = False,
) -> list[types.Content]:
    """The whole conversation ``agent_name`` is sent for ``events`` (the loop's own step).

    See :func:`adk_runtime.agents._contents.build_contents`; confirmation and credential
    requests and answers are left out, as the loop leaves them out.
    """
    return _contents.build_contents(
        _confirmation.without_confirmation_events(events),
        agent_name,
        current_branch,
        current_turn_only=False,
        other_agents_thoughts=include_thoughts_from_other_agents,
        keep_client_ids=preserve_function_call_ids,
    )


def _is_other_agent_reply(current_agent_name: str, event: Event) -> bool:
    """Whether ``event`` is another agent's turn (retold to this agent as context)."""
    return _contents.is_other_agent_reply(current_agent_name, event)


def _rearrange_events_for_async_function_responses_in_history(
    events: list[Event],
) -> list[Event]:
    """Each function response moved right after its call (``events`` when none moves)."""
    return _call_history.pair_function_responses(events)


def _rearrange_events_for_latest_function_response(events: list[Event]) -> list[Event]:
    """When the last event answers an older call, that call's exchange only."""
    return _call_history.settle_latest_response(events)


def _recover_compacted_function_calls(
    events_to_process: list[Event], source_events: list[Event]
) -> list[Event]:
    """Calls a compaction summary hid put back before their later answers."""
    return _call_history.restore_hidden_calls(events_to_process, source_events)


def drop_orphaned_function_calls(events: list[Event]) -> list[Event]:
    """``events`` without the calls no response answers (long-running and id-less ones stay)."""
    return _call_history.drop_unanswered_calls(events)
