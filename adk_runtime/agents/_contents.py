"""Build the model's view of the conversation from the session history."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from google.genai import types

from adk_runtime.agents import _call_history
from adk_runtime.agents._generator_tools import is_progress_event, is_task_question
from adk_runtime.agents._quoting import retell
from adk_runtime.events import Event, compaction_view
from adk_runtime.events.rewind import live_events
from adk_runtime.models._call_ids import without_client_ids

if TYPE_CHECKING:
    from adk_runtime.models.base_llm import BaseLlm

__all__ = ["build_contents", "in_branch", "is_other_agent_reply", "keeps_call_ids"]

# Models that pair each tool result with its call by id: the runtime's ``adk-…`` ids must
# reach them. Looked up by module, so checking does not import a provider's SDK.
_ID_PAIRING_MODELS = (
    ("adk_runtime.models.anthropic_llm", "AnthropicLlm"),
    ("adk_runtime.models.lite_llm", "LiteLlm"),  # OpenAIResponsesLlm is one
)


def keeps_call_ids(model: BaseLlm) -> bool:
    """Whether ``model`` needs the function-call ids the runtime minted (``adk-…``).

    Gemini matches responses to calls by name and position and never saw those ids, so
    they are removed for it (and for other models); Anthropic's and LiteLLM's providers
    match by id, so for them the ids are kept, as for Gemini on the Interactions API (whose
    function results name their call's id).
    """
    if getattr(model, "use_interactions_api", False) is True:
        return True
    for module_name, class_name in _ID_PAIRING_MODELS:
        model_class = getattr(sys.modules.get(module_name), class_name, None)
        if model_class is not None and isinstance(model, model_class):
            return True
    return False


def build_contents(
    events: list[Event],
    agent_name: str,
    branch: str | None,
    *,
    current_turn_only: bool,
    other_agents_thoughts: bool = False,
    keep_client_ids: bool = False,
) -> list[types.Content]:
    """Return the contents the model sees.

    The agent's own turns (and the user's) are sent as they are; other agents' turns are
    retold as user-side context that quotes them (:func:`adk_runtime.agents._quoting.retell`),
    so the model mistakes them neither for its own nor for instructions. Events of
    other branches, and events with nothing to show (empty parts, only thoughts), are left
    out. A function call is followed by its responses, also when they arrived later
    (long-running tools; when the last event answers an older call, the events between are
    left out); a response no call asked for, and a call with an id that nothing answered
    (a turn cut short) and that is not long-running, are left out. Function-call ids minted
    by the runtime (``adk-…``) are removed unless ``keep_client_ids`` (see
    :func:`keeps_call_ids`); the stored events keep them. Events a rewind cancelled are
    left out (:func:`adk_runtime.events.rewind.live_events`). Other agents' thoughts are
    left out unless ``other_agents_thoughts``. A compaction event's summary stands in for the
    events it covers (:func:`adk_runtime.events.compaction_view.view`); a call it covers
    whose answer came after it is put back before the answer. A generator tool's progress
    events and input requests, a task agent node's questions (its text is the question),
    and the user's answers to those, are left out.
    """
    source = live_events(events)
    history = _call_history.restore_hidden_calls(compaction_view.view(source, agent_name), source)
    # generator tools' progress and input requests, and the user's answers to those, are
    # between the tool and the client
    asked = {
        call.id for e in history if _is_request(e) for call in e.get_function_calls() if call.id
    }
    visible = [
        e
        for e in _call_history.drop_answers(history, asked)
        if _has_content(e, other_agents_thoughts and _is_other_agent(agent_name, e))
        and in_branch(branch, e)
        and not _is_request(e)
    ]
    if current_turn_only:
        visible = _current_turn(visible, agent_name)
    visible = _call_history.drop_unasked_responses(visible)
    visible = _call_history.settle_latest_response(visible)
    visible = _call_history.pair_function_responses(visible)
    visible = _call_history.drop_unanswered_calls(visible)
    contents: list[types.Content] = []
    for event in visible:
        assert event.content is not None
        if _is_other_agent(agent_name, event):
            context = retell(event, thoughts=other_agents_thoughts)
            if context is not None:  # nothing to retell: only thoughts, or empty parts
                contents.append(context)
        else:
            contents.append(_request_copy(event.content))
    return contents if keep_client_ids else without_client_ids(contents)


def is_other_agent_reply(agent_name: str, event: Event) -> bool:
    """Whether ``event`` is another agent's turn, to be retold as context for ``agent_name``."""
    return _is_other_agent(agent_name, event)


def _request_copy(content: types.Content) -> types.Content:
    """A copy of ``content`` and its parts, so request steps cannot change a stored event."""
    parts = [part.model_copy() for part in content.parts or []]
    return content.model_copy(update={"parts": parts})


def _has_content(event: Event, thoughts: bool) -> bool:
    if event.partial or event.content is None or not event.content.parts:
        return False
    return not all(_is_invisible(part, thoughts) for part in event.content.parts)


def _is_invisible(part: types.Part, thoughts: bool) -> bool:
    """A part the model gets nothing from: empty, or a thought (unless ``thoughts``).

    Calls, responses, server-side tool parts and thought signatures are always sent (the
    model wants those back as it gave them).
    """
    if part.function_call or part.function_response or part.thought_signature:
        return False
    if part.tool_call or part.tool_response:
        return False
    if part.thought and not thoughts:
        return True
    return not (
        part.text
        or part.inline_data
        or part.file_data
        or part.executable_code
        or part.code_execution_result
    )


def _is_request(event: Event) -> bool:
    """Between the runtime and the client: a generator tool's, or a task node's question."""
    return is_progress_event(event) or any(is_task_question(c) for c in event.get_function_calls())


def in_branch(branch: str | None, event: Event) -> bool:
    """Whether an agent in ``branch`` sees ``event`` (of its branch or an enclosing one)."""
    if not branch or not event.branch:
        return True
    return branch == event.branch or branch.startswith(event.branch + ".")


def _is_other_agent(agent_name: str, event: Event) -> bool:
    """Another agent's event, from ``agent_name``'s view (with no agent named, none is)."""
    return bool(agent_name) and bool(event.author) and event.author not in (agent_name, "user")


def _current_turn(events: list[Event], agent_name: str) -> list[Event]:
    """The events of the current turn (``include_contents="none"``).

    It starts at the latest message of the user or of another agent, with two exceptions: a
    hand-over (``transfer_to_agent``) does not start a turn, so an agent the conversation
    was transferred to still sees the message that led there (the hand-over retold as
    context after it); and an answer to a call (a function response) does not either, nor
    does any message after a call whose answer comes later, so a late answer keeps its call.
    """
    awaiting: set[str] = set()  # responses seen whose call is further back
    for index in range(len(events) - 1, -1, -1):
        event = events[index]
        awaiting -= {call.id for call in event.get_function_calls() if call.id}
        responses = event.get_function_responses()
        awaiting |= {response.id for response in responses if response.id}
        starts = event.author == "user" or _is_other_agent(agent_name, event)
        if starts and not responses and not awaiting and not _is_transfer(event):
            return events[index:]
    return []


def _is_transfer(event: Event) -> bool:
    """A hand-over to another agent: the ``transfer_to_agent`` call or its response."""
    return bool(event.actions.transfer_to_agent) or any(
        call.name == "transfer_to_agent" for call in event.get_function_calls()
    )
