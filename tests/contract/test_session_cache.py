"""The session cache: a full read fetches only new events, and never serves stale history.

Run on every durable backend: the cached service and a second, uncached service (standing in
for another process or replica) share one store.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from google.genai import types

from adk_runtime.errors import ConfigurationError
from adk_runtime.events import Event, EventActions
from adk_runtime.sessions import BaseSessionService, session_service_from_url
from adk_runtime.sessions._cache import SessionCache
from tests.stores import Store, durable_params, fresh_store

APP = "cache"


def _event(text: str, delta: dict[str, Any] | None = None) -> Event:
    return Event(
        author="agent",
        content=types.Content(role="model", parts=[types.Part(text=text)]),
        actions=EventActions(state_delta=delta or {}),
    )


@pytest.fixture(params=durable_params())
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    async with fresh_store(request.param, tmp_path) as found:
        yield found


@pytest.fixture
async def cached(store: Store) -> AsyncIterator[BaseSessionService]:
    async with session_service_from_url(store.url, **store.kwargs, cache_bytes=1 << 20) as s:
        yield s


@pytest.fixture
async def other(store: Store) -> AsyncIterator[BaseSessionService]:
    async with store.open() as service:
        yield service


def _texts(session: Any) -> list[str]:
    return [event.content.parts[0].text for event in session.events]


async def _get(service: BaseSessionService, session_id: str = "s") -> Any:
    return await service.get_session(app_name=APP, user_id="u", session_id=session_id)


async def test_a_warm_read_reuses_the_decoded_history_and_adds_new_events(
    cached: BaseSessionService,
) -> None:
    session = await cached.create_session(app_name=APP, user_id="u", session_id="s")
    for i in range(5):
        await cached.append_event(session, _event(f"e{i}", {"n": i}))
    first = await _get(cached)
    await cached.append_event(session, _event("e5", {"n": 5}))
    second = await _get(cached)
    assert _texts(second) == [f"e{i}" for i in range(6)]
    assert second.revision == 6
    assert second.state == {"n": 5}
    # The five older events were not fetched and decoded again: the same objects come back.
    assert all(a is b for a, b in zip(first.events, second.events[:5], strict=True))


async def test_appends_by_another_process_are_seen(
    cached: BaseSessionService, other: BaseSessionService
) -> None:
    await cached.create_session(app_name=APP, user_id="u", session_id="s")
    assert _texts(await _get(cached)) == []
    elsewhere = await _get(other)
    await other.append_event(elsewhere, _event("theirs", {"who": "other"}))
    seen = await _get(cached)
    assert _texts(seen) == ["theirs"]
    assert seen.revision == 1
    assert seen.state == {"who": "other"}


async def test_a_session_deleted_and_created_again_elsewhere_is_read_whole(
    cached: BaseSessionService, other: BaseSessionService
) -> None:
    session = await cached.create_session(app_name=APP, user_id="u", session_id="s")
    for text in ("old-1", "old-2"):
        await cached.append_event(session, _event(text))
    assert _texts(await _get(cached)) == ["old-1", "old-2"]
    await other.delete_session(app_name=APP, user_id="u", session_id="s")
    assert await _get(cached) is None
    reborn = await other.create_session(app_name=APP, user_id="u", session_id="s")
    for text in ("new-1", "new-2"):
        await other.append_event(reborn, _event(text))
    # Same id, same revision as the cached copy: only the identity tells them apart.
    warm = await _get(cached)
    assert warm.revision == 2
    assert _texts(warm) == ["new-1", "new-2"]


async def test_re_creation_without_a_read_in_between_is_detected(
    cached: BaseSessionService, other: BaseSessionService
) -> None:
    session = await cached.create_session(app_name=APP, user_id="u", session_id="s")
    await cached.append_event(session, _event("old"))
    assert _texts(await _get(cached)) == ["old"]
    await other.delete_session(app_name=APP, user_id="u", session_id="s")
    reborn = await other.create_session(app_name=APP, user_id="u", session_id="s")
    await other.append_event(reborn, _event("new"))
    assert _texts(await _get(cached)) == ["new"]


async def test_mutating_what_was_handed_out_does_not_change_the_cache(
    cached: BaseSessionService,
) -> None:
    session = await cached.create_session(app_name=APP, user_id="u", session_id="s")
    await cached.append_event(session, _event("a", {"k": {"nested": 1}}))
    handed = await _get(cached)
    handed.events.append(_event("injected"))
    handed.events.pop(0)
    handed.state["k"]["nested"] = 2
    handed.state["extra"] = True
    again = await _get(cached)
    assert _texts(again) == ["a"]
    assert again.state == {"k": {"nested": 1}}


async def test_windowed_reads_bypass_the_cache(cached: BaseSessionService) -> None:
    from adk_runtime.sessions import GetSessionConfig

    session = await cached.create_session(app_name=APP, user_id="u", session_id="s")
    for i in range(4):
        await cached.append_event(session, _event(f"e{i}"))
    await _get(cached)
    recent = await cached.get_session(
        app_name=APP, user_id="u", session_id="s", config=GetSessionConfig(num_recent_events=2)
    )
    assert recent is not None
    assert _texts(recent) == ["e2", "e3"]


def test_the_cache_is_bounded_in_bytes_least_recently_used_first() -> None:
    from adk_runtime.sessions._cache import CachedSession

    cache = SessionCache(100)
    cache.put(("a", "u", "1"), CachedSession("x", 1, (), 60))
    cache.put(("a", "u", "2"), CachedSession("x", 1, (), 30))
    assert cache.get(("a", "u", "1")) is not None  # 1 is now the most recently used
    cache.put(("a", "u", "3"), CachedSession("x", 1, (), 30))
    assert cache.size <= 100
    assert cache.get(("a", "u", "2")) is None
    assert cache.get(("a", "u", "1")) is not None
    cache.put(("a", "u", "big"), CachedSession("x", 1, (), 101))
    assert cache.get(("a", "u", "big")) is None


@pytest.mark.parametrize("bad", [0, -1, True, 1.5])
def test_a_bad_cache_size_is_refused(bad: Any) -> None:
    with pytest.raises(ConfigurationError, match="cache_bytes"):
        SessionCache(bad)


async def test_the_cache_size_can_come_from_the_url(store: Store) -> None:
    separator = "&" if "?" in store.url else "?"
    url = f"{store.url}{separator}cache_bytes=4096"
    async with session_service_from_url(url, **store.kwargs) as service:
        cache = service._session_cache
        assert cache is not None
        assert cache.max_bytes == 4096
