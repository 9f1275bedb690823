"""How well Gemini context caching served an agent, read from a session's events.

google-adk's ``utils.cache_performance_analyzer``. Every model-response event records the
context cache its request used (``Event.cache_metadata``) and the token counts
(``Event.usage_metadata``); both are stored with the event on every backend, so the
analysis works on any session, in any process.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from adk_runtime.errors import SessionNotFoundError
from adk_runtime.utils.feature_decorator import experimental

if TYPE_CHECKING:
    from adk_runtime.events import Event
    from adk_runtime.models.cache_metadata import CacheMetadata
    from adk_runtime.sessions.base_session_service import BaseSessionService

__all__ = ["CachePerformanceAnalyzer"]


@experimental
class CachePerformanceAnalyzer:
    """Cache hit ratios and cache use of an agent, from a session's events."""

    def __init__(self, session_service: BaseSessionService) -> None:
        """Read sessions from ``session_service``."""
        self.session_service = session_service

    async def _events(self, session_id: str, user_id: str, app_name: str) -> list[Event]:
        session = await self.session_service.get_session(
            app_name=app_name, user_id=user_id, session_id=session_id
        )
        if session is None:
            raise SessionNotFoundError(
                f"There is no session {session_id!r} of user {user_id!r} in app {app_name!r}."
            )
        return list(session.events)

    async def _get_agent_cache_history(
        self, session_id: str, user_id: str, app_name: str, agent_name: str | None = None
    ) -> list[CacheMetadata]:
        """The cache metadata of the session's events, oldest first.

        Only ``agent_name``'s events when it is given.

        Raises:
            SessionNotFoundError: There is no such session (a ``ValueError``).
        """
        events = await self._events(session_id, user_id, app_name)
        return _cache_history(events, agent_name)

    async def analyze_agent_cache_performance(
        self, session_id: str, user_id: str, app_name: str, agent_name: str
    ) -> dict[str, Any]:
        """The cache figures of ``agent_name`` in a session.

        Returns:
            ``{"status": "no_cache_data"}`` when none of its events used a cache; otherwise
            ``status`` ``"active"`` and: ``requests_with_cache`` (its events with cache
            metadata), ``latest_cache`` (the last cache's name), ``cache_refreshes``
            (distinct caches), ``total_invocations`` and ``avg_invocations_used`` (uses per
            cache, each cache counted once at its highest count), and from its events'
            token counts ``total_requests``, ``requests_with_cache_hits``,
            ``total_prompt_tokens``, ``total_cached_tokens``, ``cache_hit_ratio_percent``
            (cached / prompt tokens), ``cache_utilization_ratio_percent`` (requests with
            hits / requests) and ``avg_cached_tokens_per_request``.

        Raises:
            SessionNotFoundError: There is no such session (a ``ValueError``).
        """
        events = await self._events(session_id, user_id, app_name)
        history = _cache_history(events, agent_name)
        if not history:
            return {"status": "no_cache_data"}
        return {"status": "active", **_cache_use(history), **_token_use(events, agent_name)}


def _cache_history(events: list[Event], agent_name: str | None) -> list[CacheMetadata]:
    return [
        event.cache_metadata
        for event in events
        if event.cache_metadata is not None and agent_name in (None, event.author)
    ]


def _cache_use(history: list[CacheMetadata]) -> dict[str, Any]:
    """Per-cache figures: a response carries its cache's running use count, not one use."""
    uses: dict[str, int] = {}
    for cache in history:
        if cache.cache_name is not None and cache.invocations_used is not None:
            uses[cache.cache_name] = max(uses.get(cache.cache_name, 0), cache.invocations_used)
    total = sum(uses.values())
    return {
        "requests_with_cache": len(history),
        "avg_invocations_used": total / len(uses) if uses else 0,
        "latest_cache": history[-1].cache_name,
        "cache_refreshes": len({c.cache_name for c in history if c.cache_name is not None}),
        "total_invocations": total,
    }


def _token_use(events: list[Event], agent_name: str) -> dict[str, Any]:
    requests = hits = prompt_tokens = cached_tokens = 0
    for event in events:
        usage = event.usage_metadata
        if event.author != agent_name or usage is None:
            continue
        requests += 1
        prompt_tokens += usage.prompt_token_count or 0
        if usage.cached_content_token_count:
            cached_tokens += usage.cached_content_token_count
            hits += 1
    return {
        "total_prompt_tokens": prompt_tokens,
        "total_cached_tokens": cached_tokens,
        "cache_hit_ratio_percent": cached_tokens / prompt_tokens * 100 if prompt_tokens else 0.0,
        "cache_utilization_ratio_percent": hits / requests * 100 if requests else 0.0,
        "avg_cached_tokens_per_request": cached_tokens / requests if requests else 0.0,
        "total_requests": requests,
        "requests_with_cache_hits": hits,
    }
