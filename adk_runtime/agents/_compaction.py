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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from google.genai import types

from adk_runtime.agents._events_summarizer import LlmEventSummarizer, as_text
from adk_runtime.core._compaction_config import BaseEventsSummarizer, EventsCompactionConfig
from adk_runtime.core.base_agent import BaseAgent
from adk_runtime.errors import SerializationError
from adk_runtime.events import Event, EventActions, compaction_view, event_to_json
from adk_runtime.events._limits import check_storable
from adk_runtime.events.event_actions import EventCompaction
from adk_runtime.events.rewind import live_events
from adk_runtime.models.base_llm import BaseLlm

__all__ = [
    "DueRange",
    "EventsCompactionConfig",
    "Trigger",
    "due_range",
    "events_to_summarize",
    "prompt_tokens",
    "summarize",
    "summarize_due",
    "summarizer_for",
]


logger = logging.getLogger(__name__)

_CHARS_PER_TOKEN = 4  # the estimate used when no model reported a prompt token count


Trigger = Literal["token_threshold", "sliding_window"]
"""Which trigger of an :class:`EventsCompactionConfig` chose a range."""


@dataclass(frozen=True)
class DueRange:
    """The events the next summary should cover, and the trigger that chose them."""

    trigger: Trigger
    events: list[Event]


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
    due = due_range(config, events, token_threshold_only=token_threshold_only)
    if due is None:
        return None
    summarizer = summarizer_for(config, agent)
    if summarizer is None:
        return None
    return await summarize(summarizer, due.events)


async def summarize(
    summarizer: BaseEventsSummarizer,
    chosen: list[Event],
    *,
    on_failure: Callable[[Exception], None] | None = None,
) -> Event | None:
    """``summarizer``'s compaction event for ``chosen``, or None if there is none to commit.

    A failing summarizer, an answer without ``actions.compaction`` and a summary that
    could not be stored are logged and give None. ``on_failure`` is told of a summarizer
    that raised.
    """
    try:
        summary = await summarizer.maybe_summarize_events(events=chosen)
    except Exception as exc:  # a summary is an optimisation; the turn goes on
        logger.warning(
            "Event compaction failed (%s); the model keeps seeing the events as they are.",
            type(exc).__name__,
        )
        if on_failure is not None:
            on_failure(exc)
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
    """The events the next summary should cover (empty: none is due); see :func:`due_range`."""
    due = due_range(config, events, token_threshold_only=token_threshold_only)
    return due.events if due is not None else []


def due_range(
    config: EventsCompactionConfig,
    events: list[Event],
    *,
    token_threshold_only: bool = False,
    sliding_window_only: bool = False,
    agent_name: str = "",
) -> DueRange | None:
    """The range the next summary should cover, or None when no summary is due.

    The token-threshold trigger is tried first (unless ``sliding_window_only``), then
    (unless ``token_threshold_only``) the sliding window. ``agent_name``: only prompt token
    counts that agent's model reported are read (see :func:`prompt_tokens`). A delegated
    task's events (``isolation_scope``) are never summarised: the summary is read outside
    the task, where that work must not show, and the task agent reads its events as they are.
    """
    live = [event for event in live_events(events) if event.isolation_scope is None]
    if (
        not sliding_window_only
        and config.token_threshold is not None
        and config.event_retention_size is not None
    ):
        tokens = prompt_tokens(live, agent_name=agent_name)
        if tokens is not None and tokens >= config.token_threshold:
            chosen = _by_token_threshold(live, config.event_retention_size)
            if chosen:
                return DueRange("token_threshold", chosen)
    interval, overlap = config.compaction_interval, config.overlap_size
    if not token_threshold_only and interval is not None and overlap is not None:
        chosen = _by_sliding_window(live, interval, overlap)
        if chosen:
            return DueRange("sliding_window", chosen)
    return None


def summarizer_for(config: EventsCompactionConfig, agent: BaseAgent) -> BaseEventsSummarizer | None:
    """The config's summarizer, else one on ``agent``'s model; None (logged) without either."""
    summarizer = _summarizer(config, agent)
    if summarizer is None:
        logger.warning(
            "Event compaction is due but %s has no model to summarise with; set "
            "EventsCompactionConfig.summarizer.",
            agent.name,
        )
    return summarizer


def _summarizer(config: EventsCompactionConfig, agent: BaseAgent) -> BaseEventsSummarizer | None:
    if config.summarizer is not None:
        return config.summarizer
    model = getattr(agent, "canonical_model", None)  # an LlmAgent's (App checks there is one)
    return LlmEventSummarizer(llm=model) if isinstance(model, BaseLlm) else None


def _by_token_threshold(events: list[Event], retention: int) -> list[Event]:
    candidates = compaction_view.uncovered(events)
    if len(candidates) <= retention:
        return []
    split = _split_keeping_calls(candidates, len(candidates) - retention)
    chosen = _self_contained_prefix(candidates[:split], events)
    if not chosen:
        return []
    latest = compaction_view.latest_summary(events)
    if latest is not None:
        # The previous summary leads, dated from its own start, so the new one covers its
        # range too and replaces it: one rolling summary instead of a growing pile. Any
        # other summary the new range will contain leads as well, so none is lost.
        start = min(latest[1].start_timestamp, *(event.timestamp for event in chosen))
        end = max(event.timestamp for event in chosen)
        seeds = [
            _as_seed(events[index], compaction)
            for index, compaction in sorted(
                compaction_view.counted_summaries(events), key=lambda item: item[1].start_timestamp
            )
            if index == latest[0]
            or (start <= compaction.start_timestamp and compaction.end_timestamp <= end)
        ]
        chosen = [*seeds, *chosen]
    return chosen if _worth_it(chosen, events) else []


def _as_seed(event: Event, compaction: EventCompaction) -> Event:
    """An earlier summary as the first event of the next one's range, dated from its start."""
    return Event(
        author="model",
        invocation_id=event.invocation_id,
        branch=event.branch,
        timestamp=compaction.start_timestamp,
        content=compaction.compacted_content,
    )


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


def prompt_tokens(events: list[Event], *, agent_name: str = "") -> int | None:
    """The prompt size of the session's last model request, in tokens.

    The last count a model reported since the latest summary (of ``agent_name``'s events
    only, when given: another agent's count measures another request); without one, an
    estimate of what the model is shown now (four characters a token, thoughts left out).
    """
    for event in reversed(events):
        if compaction_view.is_compaction(event):
            break
        usage = event.usage_metadata
        if (
            usage is not None
            and usage.prompt_token_count is not None
            and (not agent_name or event.author == agent_name)
        ):
            return usage.prompt_token_count
    chars = sum(_chars(event.content) for event in compaction_view.view(events, ""))
    return chars // _CHARS_PER_TOKEN if chars else None


def _chars(content: types.Content | None) -> int:
    """The characters ``content`` puts in a request: text, tool calls and tool answers."""
    if content is None or not content.parts:
        return 0
    total = 0
    for part in content.parts:
        if not part.thought:  # thoughts are the model's own scratch, not read back
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

    The next summary is likely to cost what the last one did, so it is worth writing only
    when the request would lose more than that: what an empty summary of ``chosen``'s range
    removes from the request (events an earlier summary already hides count for nothing; an
    earlier summary the new range covers counts in full), by the size of the content sent.
    The first summary is always tried.
    """
    latest = compaction_view.latest_summary(events)
    if latest is None:
        return True
    empty = Event(
        author="model",
        invocation_id=events[-1].invocation_id,
        actions=EventActions(
            compaction=EventCompaction(
                start_timestamp=min(event.timestamp for event in chosen),
                end_timestamp=max(event.timestamp for event in chosen),
                compacted_content=types.Content(role="model", parts=[]),
            )
        ),
    )
    removed = _request_size(events) - _request_size([*events, empty])
    return removed > _size(latest[1].compacted_content)


def _request_size(events: list[Event]) -> int:
    return sum(_size(event.content) for event in compaction_view.view(events, ""))


def _size(content: types.Content | None) -> int:
    """The size of ``content`` as a request carries it (its JSON, every part in full)."""
    return len(content.model_dump_json(exclude_none=True)) if content is not None else 0


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
    """The longest prefix of ``chosen`` that leaves no call or request to the user waiting.

    A summary must not separate a function call from its response (the model would see one
    without the other) nor swallow a confirmation or credentials the user has yet to give.
    A call that can never be answered (no response anywhere in the session, not
    long-running, not of the newest invocation: its invocation was cut short) does not hold
    the prefix back, unless the prefix already ends between two invocations: then that
    prefix is summarised, and the call is passed over once it opens the next range (it has
    had one more invocation to be answered).
    """
    length = _balanced_length(chosen, set())
    if length == len(chosen):
        return chosen
    if length and chosen[length - 1].invocation_id != chosen[length].invocation_id:
        return chosen[:length]
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
        waiting |= _requested_ids(event) - ignored
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
        pending |= _requested_ids(event)
    return {
        call_id
        for event in chosen
        if event.invocation_id != newest
        for call_id in _call_ids(event)
        if call_id not in answered and call_id not in pending
    }


def _requested_ids(event: Event) -> set[str]:
    """The call ids ``event`` asks the user about (a confirmation, or credentials)."""
    actions = event.actions
    return set(actions.requested_tool_confirmations) | set(actions.requested_auth_configs)


def _call_ids(event: Event) -> set[str]:
    return {call.id for call in event.get_function_calls() if call.id}


def _response_ids(event: Event) -> set[str]:
    return {response.id for response in event.get_function_responses() if response.id}
