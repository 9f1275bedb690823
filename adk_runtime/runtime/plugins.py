"""The Runner's App and plugin hooks: around an invocation, on each event before its commit.

``run_with_plugins`` wraps the agent's event stream of one invocation (a new turn or a
resumed one): the plugins' ``before_run_callback`` first (content it returns answers instead
of the agent), then ``on_event_callback`` on each event the agent yields — the event that
comes out is what the Runner commits and yields, so a plugin's change to an event is durable
exactly as the agent's own content is — then ``after_run_callback`` once the invocation
ended (normally, or because the caller stopped reading). An error (the agent's, or a
failing ``after_run_callback``'s) is reported to ``on_run_error_callback`` once and goes on.
``plugin_message`` runs ``on_user_message_callback`` on the user's message before it is
stored (its failure is reported the same way).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Any

from google.genai import types

from adk_runtime.core.invocation_context import InvocationContext
from adk_runtime.events import Event

__all__ = ["apply_on_event", "plugin_message", "run_with_plugins"]

# What a replacement event returned by on_event_callback cannot change: the event's identity.
_KEPT = frozenset({"id", "invocation_id", "timestamp"})


def run_with_plugins(
    ctx: InvocationContext, events: AsyncGenerator[Event, None]
) -> AsyncGenerator[Event, None]:
    """The invocation's events through the plugins (see the module docstring).

    Each event also gets the run's ``RunConfig.custom_metadata`` (the event's own keys
    win). Without plugins and metadata (the common case) that is ``events`` itself: no
    layer per event. Otherwise ``events`` is closed when the returned generator is, whether
    or not it was started.
    """
    if ctx.plugin_manager.plugins:
        events = _through_plugins(ctx, events)
    metadata = ctx.run_config.custom_metadata if ctx.run_config is not None else None
    if metadata:
        events = _stamped(events, metadata)
    return events


async def _stamped(
    events: AsyncGenerator[Event, None], metadata: dict[str, Any]
) -> AsyncGenerator[Event, None]:
    async with aclosing(events) as stream:
        async for event in stream:
            event.custom_metadata = {**metadata, **(event.custom_metadata or {})}
            yield event


async def _through_plugins(
    ctx: InvocationContext, events: AsyncGenerator[Event, None]
) -> AsyncGenerator[Event, None]:
    manager = ctx.plugin_manager
    finished = False
    try:
        async with aclosing(events) as stream:
            content = await manager.run_before_run_callback(invocation_context=ctx)
            if content is not None:
                answer = Event(invocation_id=ctx.invocation_id, author="model", content=content)
                yield await apply_on_event(ctx, answer)
            else:
                async for event in stream:
                    yield await apply_on_event(ctx, event)
        finished = True
    except GeneratorExit:  # the caller stopped reading: the run ended, not failed
        finished = True
        raise
    except Exception as exc:
        await manager.run_on_run_error_callback(invocation_context=ctx, error=exc)
        raise
    finally:
        if finished:
            try:
                await manager.run_after_run_callback(invocation_context=ctx)
            except Exception as exc:  # a failing after_run is the run's error too
                await manager.run_on_run_error_callback(invocation_context=ctx, error=exc)
                raise


async def apply_on_event(ctx: InvocationContext, event: Event) -> Event:
    """``event`` after the plugins' ``on_event_callback``: what is committed and yielded.

    A replacement event's explicitly set fields are laid over the original (its ``id``,
    ``invocation_id`` and ``timestamp`` stay the original's), so the stored event and the
    yielded one are the same and keep the agent event's identity.
    """
    replacement = await ctx.plugin_manager.run_on_event_callback(
        invocation_context=ctx, event=event
    )
    if replacement is None or replacement is event:
        return event
    update: dict[str, Any] = {
        name: getattr(replacement, name)
        for name in replacement.model_fields_set
        if name not in _KEPT
    }
    merged = event.model_copy(update=update)
    if not merged.author:
        merged.author = event.author
    return merged


async def plugin_message(
    ctx: InvocationContext, message: types.Content, idempotency_key: str | None
) -> types.Content:
    """The user's message after the plugins' ``on_user_message_callback`` (what is stored).

    A retried message already stored under ``idempotency_key`` is not shown to them again: the
    stored message (as the plugins left it the first time) stands for it.
    """
    if not ctx.plugin_manager.plugins:
        return message
    stored = _stored(ctx.session.events, idempotency_key)
    if stored is not None:
        return stored.content or message
    try:
        replaced = await ctx.plugin_manager.run_on_user_message_callback(
            invocation_context=ctx, user_message=message
        )
    except Exception as exc:  # nothing is stored; the plugins hear of it as the run's error
        await ctx.plugin_manager.run_on_run_error_callback(invocation_context=ctx, error=exc)
        raise
    if replaced is None:
        return message
    ctx.user_content = replaced
    return replaced


def _stored(events: list[Event], event_id: str | None) -> Event | None:
    """The session's event ``event_id`` if it holds it already (a retried message)."""
    if event_id is None:
        return None
    # Newest first: a retried message is usually recent.
    return next((event for event in reversed(events) if event.id == event_id), None)
