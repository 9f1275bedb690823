"""Event compaction: when a run of older events is due for a summary, and which.

:func:`summarize_due` decides, from an :class:`EventsCompactionConfig` and the session's
events, whether a run of events is due for a summary and which, and asks the summarizer for
the compaction event: after each invocation (the Runner, ``apps.compaction``) and, for the
token-threshold trigger, before each model call. What the model then sees is
:func:`adk_runtime.events.compaction_view.view`. ``EventsCompactionConfig`` is public as
``adk_runtime.apps.app.EventsCompactionConfig``, google-adk's path.
"""

from __future__ import annotations

import logging

from google.genai import types

from adk_runtime.agents._compaction_config import EventsCompactionConfig
from adk_runtime.agents._events_summarizer import (
    BaseEventsSummarizer,
    LlmEventSummarizer,
    as_text,
)
from adk_runtime.agents.base_agent import BaseAgent
from adk_runtime.errors import SerializationError
from adk_runtime.events import Event, compaction_view, event_to_json
from adk_runtime.events._limits import check_storable
from adk_runtime.events.rewind import live_events
from adk_runtime.models.base_llm import BaseLlm

__all__ = ["EventsCompactionConfig", "events_to_summarize", "summarize_due"]


logger = logging.getLogger(__name__)

_CHARS_PER_TOKEN = 4  # the estimate used when no model reported a prompt token count


async def summarize_due(
    config: EventsCompactionConfig,
    agent: BaseAgent,
    events: list[Event],
    *,
    token_threshold_only: bool = False,
) -> Event | None:
    """The compaction event due now, or None.

    ``events`` are the session's events; ``agent`` is the one whose model summarises when
    the config names no summarizer. ``token_threshold_only``: only the token-threshold
    trigger is checked (before a model call, inside an invocation). A summarizer that fails
    or answers nothing leaves the history as it is (logged, never raised: a summary only
    makes requests smaller, and the next check tries again).
    """
    chosen = events_to_summarize(config, events, token_threshold_only=token_threshold_only)
    if not chosen:
        return None
    summarizer = _summarizer(config, agent)
    if summarizer is None:
        logger.warning(
            "Event compaction is due but %s has no model to summarise with; set "
            "EventsCompactionConfig.summarizer.",
            agent.name,
        )
        return None
    try:
        summary = await summarizer.maybe_summarize_events(events=chosen)
    except Exception as exc:  # a summary is an optimisation; the turn goes on
        logger.warning(
            "Event compaction failed (%s); the model keeps seeing the events as they are.",
            type(exc).__name__,
        )
        return None
    if summary is None:
        return None
    if summary.actions.compaction is None:
        logger.warning(
            "%s returned an event without actions.compaction; it was not committed.",
            type(summarizer).__name__,
        )
        return None
    try:  # a summary that could not be stored must not fail the turn it follows
        check_storable(summary, event_to_json(summary))
    except SerializationError as exc:
        logger.warning("Event compaction skipped: the summary cannot be stored (%s).", exc.reason)
        return None
    return summary


def events_to_summarize(
    config: EventsCompactionConfig, events: list[Event], *, token_threshold_only: bool = False
) -> list[Event]:
    """The events the next summary should cover (empty: none is due).

    The token-threshold trigger is tried first, then (unless ``token_threshold_only``) the
    sliding window.
    """
    live = live_events(events)
    chosen: list[Event] = []
    if config.token_threshold is not None and config.event_retention_size is not None:
        chosen = _by_token_threshold(live, config.token_threshold, config.event_retention_size)
    interval, overlap = config.compaction_interval, config.overlap_size
    if not chosen and not token_threshold_only and interval is not None and overlap is not None:
        chosen = _by_sliding_window(live, interval, overlap)
    return chosen


def _summarizer(config: EventsCompactionConfig, agent: BaseAgent) -> BaseEventsSummarizer | None:
    if config.summarizer is not None:
        return config.summarizer
    model = getattr(agent, "canonical_model", None)  # an LlmAgent's (App checks there is one)
    return LlmEventSummarizer(llm=model) if isinstance(model, BaseLlm) else None


def _by_token_threshold(events: list[Event], threshold: int, retention: int) -> list[Event]:
    tokens = _prompt_tokens(events)
    if tokens is None or tokens < threshold:
        return []
    candidates = compaction_view.uncovered(events)
    if len(candidates) <= retention:
        return []
    split = _split_keeping_calls(candidates, len(candidates) - retention)
    chosen = _self_contained_prefix(candidates[:split], events)
    if not chosen or not _worth_it(chosen, events):
        return []
    latest = compaction_view.latest_summary(events)
    if latest is None:
        return chosen
    index, compaction = latest
    # The previous summary leads, dated from its own start, so the new one covers its range
    # too and replaces it: one rolling summary instead of a growing pile.
    seed = Event(
        author="model",
        invocation_id=events[index].invocation_id,
        branch=events[index].branch,
        timestamp=compaction.start_timestamp,
        content=compaction.compacted_content,
    )
    return [seed, *chosen]


def _by_sliding_window(events: list[Event], interval: int, overlap: int) -> list[Event]:
    raw = [event for event in events if not compaction_view.is_compaction(event)]
    summarized_until = 0.0
    for event in reversed(events):
        if event.actions.compaction is not None:
            summarized_until = event.actions.compaction.end_timestamp
            break
    last_seen: dict[str, float] = {}
    for event in raw:
        if event.invocation_id:
            last_seen[event.invocation_id] = max(
                last_seen.get(event.invocation_id, event.timestamp), event.timestamp
            )
    order = list(last_seen)
    new = [invocation for invocation in order if last_seen[invocation] > summarized_until]
    if len(new) < interval:
        return []
    first = order[max(0, order.index(new[0]) - overlap)]
    start = next(i for i, event in enumerate(raw) if event.invocation_id == first)
    end = max(i for i, event in enumerate(raw) if event.invocation_id == new[-1])
    chosen = _self_contained_prefix(raw[start : end + 1], events)
    if not chosen or not _worth_it(chosen, events):
        return []
    return chosen


def _prompt_tokens(events: list[Event]) -> int | None:
    """The prompt size of the session's last model request, in tokens.

    The last count a model reported since the latest summary; without one, an estimate of
    what the model is shown now.
    """
    for event in reversed(events):
        if compaction_view.is_compaction(event):
            break
        usage = event.usage_metadata
        if usage is not None and usage.prompt_token_count is not None:
            return usage.prompt_token_count
    chars = sum(_chars(event.content) for event in compaction_view.view(events, ""))
    return chars // _CHARS_PER_TOKEN if chars else None


def _chars(content: types.Content | None) -> int:
    """The characters ``content`` puts in a request: text, tool calls and tool answers."""
    if content is None or not content.parts:
        return 0
    total = 0
    for part in content.parts:
        total += len(part.text or "")
        if part.function_call is not None:
            total += len(part.function_call.name or "") + _json_chars(part.function_call.args)
        if part.function_response is not None:
            total += len(part.function_response.name or "")
            total += _json_chars(part.function_response.response)
    return total


def _json_chars(value: object) -> int:
    return len(as_text(value)) if value else 0


def _worth_it(chosen: list[Event], events: list[Event]) -> bool:
    """Whether summarising ``chosen`` can shrink the request.

    Only when the events are longer than the last summary was: that is what the next one is
    likely to cost. The first summary is always tried.
    """
    latest = compaction_view.latest_summary(events)
    if latest is None:
        return True
    return sum(_chars(event.content) for event in chosen) > _chars(latest[1].compacted_content)


def _split_keeping_calls(events: list[Event], split: int) -> int:
    """``split`` moved earlier until no event from it on answers a call made before it."""
    unanswered: set[str] = set()  # responses in events[index:] whose call is before index
    for index in range(len(events), -1, -1):
        if index < len(events):
            unanswered |= _response_ids(events[index])
            unanswered -= _call_ids(events[index])
        if index <= split and not unanswered:
            return index
    return 0


def _self_contained_prefix(chosen: list[Event], events: list[Event]) -> list[Event]:
    """The longest prefix of ``chosen`` that leaves no call or confirmation waiting.

    A summary must not separate a function call from its response (the model would see one
    without the other) nor swallow a confirmation the user has yet to give. A call that can
    never be answered (no response anywhere in the session, not long-running, not of the
    newest invocation: its invocation was cut short) does not hold the prefix back.
    """
    length = _balanced_length(chosen, set())
    if length == len(chosen):
        return chosen
    dead = _dead_calls(chosen, events)
    if dead:
        length = max(length, _balanced_length(chosen, dead))
    return chosen[:length]


def _balanced_length(events: list[Event], ignored: set[str]) -> int:
    waiting: set[str] = set()
    length = 0
    for index, event in enumerate(events):
        waiting -= _response_ids(event)
        waiting |= _call_ids(event) - ignored
        waiting |= set(event.actions.requested_tool_confirmations) - ignored
        if not waiting:
            length = index + 1
    return length


def _dead_calls(chosen: list[Event], events: list[Event]) -> set[str]:
    newest = next(
        (e.invocation_id for e in reversed(events) if not compaction_view.is_compaction(e)),
        None,
    )
    answered: set[str] = set()
    pending: set[str] = set()
    for event in events:
        answered |= _response_ids(event)
        pending |= event.long_running_tool_ids or set()
        pending |= set(event.actions.requested_tool_confirmations)
    return {
        call_id
        for event in chosen
        if event.invocation_id != newest
        for call_id in _call_ids(event)
        if call_id not in answered and call_id not in pending
    }


def _call_ids(event: Event) -> set[str]:
    return {call.id for call in event.get_function_calls() if call.id}


def _response_ids(event: Event) -> set[str]:
    return {response.id for response in event.get_function_responses() if response.id}
