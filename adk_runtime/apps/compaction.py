"""Event compaction after an invocation (google-adk's ``apps.compaction``).

The rules are :mod:`adk_runtime.agents._compaction`'s; the Runner calls
:func:`compact_after_invocation` once an invocation has yielded its last event and commits
what it returns under the turn's claim. google-adk's private entry points are here too,
as faces over the same rules, for code and tests written against them:

- ``_run_compaction_for_sliding_window(app, session, session_service)`` yields the summary
  due after an invocation (either trigger's); the caller appends it, as google-adk's Runner
  does with what that function yields.
- ``_run_compaction_for_token_threshold_config(config=..., session=..., session_service=...,
  agent=...)`` and ``_run_compaction_for_token_threshold(app, session, session_service)``
  append a due token-threshold summary through ``session_service`` themselves and say
  whether they did.
- ``_latest_prompt_token_count(events)`` is the prompt size the threshold is checked against.

Each summary is written inside a ``compact_events <trigger>`` span of :data:`tracer`.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

from adk_runtime.agents._compaction import (
    DueRange,
    due_range,
    events_to_summarize,
    prompt_tokens,
    summarize,
    summarizer_for,
)
from adk_runtime.apps._compaction_trace import summary_span, tracer
from adk_runtime.apps.app import App
from adk_runtime.core._compaction_config import EventsCompactionConfig
from adk_runtime.core.base_agent import BaseAgent
from adk_runtime.events import Event
from adk_runtime.events.rewind import live_events
from adk_runtime.sessions.base import BaseSessionService
from adk_runtime.sessions.session import Session

__all__ = ["compact_after_invocation", "events_to_summarize", "tracer"]


async def compact_after_invocation(
    app: App, events: list[Event], *, session_id: str | None = None
) -> Event | None:
    """The compaction event due after an invocation of ``app``, or None.

    Either trigger's (the token threshold first); nothing is committed here.

    Args:
        app: The app whose ``events_compaction_config`` and root agent are used.
        events: The session's events.
        session_id: Recorded on the compaction span when given.
    """
    config = app.events_compaction_config
    if config is None or app.root_agent is None:
        return None
    return await _summary(config, app.root_agent, due_range(config, events), session_id)


async def _summary(
    config: EventsCompactionConfig, agent: BaseAgent, due: DueRange | None, session_id: str | None
) -> Event | None:
    """The summary of ``due`` (None: none due, no summarizer, or none to commit), traced."""
    if due is None:
        return None
    summarizer = summarizer_for(config, agent)
    if summarizer is None:
        return None
    with summary_span(config, summarizer, due, session_id) as span:
        summary = await summarize(summarizer, due.events, on_failure=span.failed)
        span.summarized(summary)
    return summary


async def _run_compaction_for_sliding_window(
    app: App,
    session: Session,
    session_service: BaseSessionService,
    *,
    skip_token_compaction: bool = False,
) -> AsyncGenerator[Event, None]:
    """Yield the compaction event due after an invocation of ``app``, if any (google-adk's).

    The token threshold is checked first (unless ``skip_token_compaction``), then the
    sliding window. The event is yielded, not appended: the caller commits it (google-adk's
    Runner appends what this yields), so there is one commit for either trigger.

    Args:
        app: The app whose compaction config and root agent are used.
        session: The session whose events are checked.
        session_service: Not used here (the caller appends); kept for google-adk's signature.
        skip_token_compaction: Check the sliding window only.
    """
    del session_service
    config = app.events_compaction_config
    if config is None or app.root_agent is None:
        return
    due = due_range(config, session.events, sliding_window_only=skip_token_compaction)
    summary = await _summary(config, app.root_agent, due, session.id)
    if summary is not None:
        yield summary


async def _run_compaction_for_token_threshold_config(
    *,
    config: EventsCompactionConfig | None,
    session: Session,
    session_service: BaseSessionService,
    agent: BaseAgent,
    agent_name: str = "",
    current_branch: str | None = None,
    isolation_scope: str | None = None,
) -> bool:
    """Append the token-threshold summary due now, if any; whether one was appended.

    The append goes through ``session_service.append_event`` with ``session``: atomic,
    refused for a stale session object or while another turn holds the session, and only
    for a summary that can be stored and read back.

    Args:
        config: The compaction config; None, or one without a token threshold, does nothing.
        session: The session whose events are checked and to which the summary is appended.
        session_service: The service that commits the summary.
        agent: Whose model summarises when the config names no summarizer.
        agent_name: Only prompt token counts reported for this agent's events are read
            (empty: any).
        current_branch: Accepted for google-adk's signature; the estimate made without a
            reported count covers the session's whole history.
        isolation_scope: Our events carry no isolation scope: any other value than None
            finds no events and does nothing.
    """
    del current_branch
    if config is None or config.token_threshold is None or isolation_scope is not None:
        return False
    due = due_range(config, session.events, token_threshold_only=True, agent_name=agent_name)
    summary = await _summary(config, agent, due, session.id)
    if summary is None:
        return False
    await session_service.append_event(session=session, event=summary)
    return True


async def _run_compaction_for_token_threshold(
    app: App, session: Session, session_service: BaseSessionService
) -> bool:
    """:func:`_run_compaction_for_token_threshold_config` with ``app``'s config and root agent."""
    if app.root_agent is None:
        return False
    return await _run_compaction_for_token_threshold_config(
        config=app.events_compaction_config,
        session=session,
        session_service=session_service,
        agent=app.root_agent,
    )


def _latest_prompt_token_count(
    events: list[Event],
    *,
    current_branch: str | None = None,
    agent_name: str = "",
    isolation_scope: str | None = None,
) -> int | None:
    """The prompt size, in tokens, the token threshold is checked against (google-adk's).

    The last count a model reported since the latest summary (``agent_name``'s only, when
    given); without one, an estimate of the history the model is shown now, four characters
    a token. None for an empty history, or for an ``isolation_scope`` (our events have none).
    ``current_branch`` is accepted for google-adk's signature; the estimate covers every
    branch.
    """
    del current_branch
    if isolation_scope is not None:
        return None
    return prompt_tokens(live_events(events), agent_name=agent_name)
