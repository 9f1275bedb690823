"""The Redis key layout: per-event entries, per-key state fields, one hash slot per app."""

from __future__ import annotations

import json
import random

import pytest
import redis.asyncio as redis_asyncio
from redis.crc import key_slot

from adk_runtime.errors import ConfigurationError
from adk_runtime.sessions import GetSessionConfig, InMemorySessionService, RedisSessionService
from tests.redis_backend.conftest import APP, event, keys_under

pytestmark = pytest.mark.redis


def _hash_tag(key: str) -> str:
    """The part of ``key`` Redis Cluster hashes (its rule: first '{' to the next '}')."""
    start = key.find("{")
    end = key.find("}", start + 1)
    assert start >= 0, f"{key!r} has no hash tag"
    assert end > start + 1, f"{key!r} has no usable hash tag"
    return key[start + 1 : end]


@pytest.mark.parametrize("app_name", ["app", "a{b}c", "}x{", "col:on", "%7B", "ünï ✓"])
async def test_every_key_of_an_app_shares_one_hash_slot(
    service: RedisSessionService, raw: redis_asyncio.Redis, prefix: str, app_name: str
) -> None:
    for user_id, session_id in [("u:{1}", "s}:{"), ("u2", "s")]:
        session = await service.create_session(
            app_name=app_name, user_id=user_id, session_id=session_id, state={"k": 0}
        )
        delta = {"k": 1, "app:a": 1, "user:u": 1}
        await service.append_event(session, event(delta=delta, timestamp=1.0))
    keys = await keys_under(raw, prefix)
    # Per session: meta, state, events, ids, times; per user: state and index; the app: 2.
    assert len(keys) == 2 * 5 + 2 * 2 + 2
    assert len({_hash_tag(key) for key in keys}) == 1
    assert len({key_slot(key.encode()) for key in keys}) == 1


async def test_ids_with_separators_never_collide(service: RedisSessionService) -> None:
    first = await service.create_session(app_name=APP, user_id="a:b", session_id="c")
    second = await service.create_session(app_name=APP, user_id="a", session_id="b:c")
    await service.append_event(first, event(delta={"k": "first", "user:u": 1}))
    loaded = await service.get_session(app_name=APP, user_id="a", session_id="b:c")
    assert loaded is not None
    assert (loaded.state, loaded.events, loaded.revision) == ({}, [], 0)
    assert second.state == {}
    listed = await service.list_sessions(app_name=APP)
    assert sorted((s.user_id, s.id) for s in listed.sessions) == [("a", "b:c"), ("a:b", "c")]


async def test_events_are_individual_entries_and_state_one_field_per_key(
    service: RedisSessionService, raw: redis_asyncio.Redis, prefix: str
) -> None:
    session = await service.create_session(app_name=APP, user_id="u", session_id="s")
    events = [event(str(i), {"n": i, "big": 2**80, "f": 0.1}) for i in range(5)]
    for item in events:
        await service.append_event(session, item)
    await service.append_event(session, event(delta={"app:x": b"\x00", "user:y": -0.0}))
    base = f"{prefix}{{{APP}}}"
    stored = await raw.lrange(f"{base}:events:u:s", 0, -1)
    assert [json.loads(text)["id"] for text in stored] == [e.id for e in events] + [
        session.events[-1].id
    ]
    assert await raw.hgetall(f"{base}:eventids:u:s") == {
        e.id: str(i + 1) for i, e in enumerate(session.events)
    }
    # Values are kept as the codec's JSON text: numbers are never re-encoded by Lua.
    assert await raw.hgetall(f"{base}:state:u:s") == {
        "n": "4",
        "big": "1208925819614629174706176",
        "f": "0.1",
    }
    assert await raw.hgetall(f"{base}:app") == {"x": '{"$bytes":"AA=="}'}
    assert await raw.hgetall(f"{base}:user:u") == {"y": '{"$float":"-0.0"}'}
    assert await raw.hget(f"{base}:session:u:s", "rev") == "6"


async def test_delete_removes_every_key_of_the_session(
    service: RedisSessionService, raw: redis_asyncio.Redis, prefix: str
) -> None:
    session = await service.create_session(app_name=APP, user_id="u", session_id="s")
    await service.append_event(session, event(delta={"k": 1, "app:a": 1, "user:u": 1}))
    await service.create_session(app_name=APP, user_id="u", session_id="kept")
    before = await keys_under(raw, prefix)
    await service.delete_session(app_name=APP, user_id="u", session_id="s")
    after = await keys_under(raw, prefix)
    gone = before - after
    assert {key.rsplit(":", 2)[0].rsplit(":", 1)[1] for key in gone} == {
        "session",
        "state",
        "events",
        "eventids",
        "eventtimes",
    }
    assert all(key.endswith(":u:s") for key in gone)
    base = f"{prefix}{{{APP}}}"
    assert await raw.zrange(f"{base}:sessions:u", 0, -1) == ["kept"]
    assert await raw.zrange(f"{base}:sessions", 0, -1) == ["u:kept"]
    assert await raw.hgetall(f"{base}:app") == {"a": "1"}


async def test_after_timestamp_matches_the_reference_on_unordered_timestamps(
    service: RedisSessionService,
) -> None:
    reference = InMemorySessionService()
    rng = random.Random(7)
    timestamps = [float(rng.randint(0, 20)) for _ in range(40)]
    ours = await service.create_session(app_name=APP, user_id="u", session_id="s")
    theirs = await reference.create_session(app_name=APP, user_id="u", session_id="s")
    for i, timestamp in enumerate(timestamps):
        item = event(str(i), timestamp=timestamp)
        await service.append_event(ours, item.model_copy(deep=True))
        await reference.append_event(theirs, item.model_copy(deep=True))
    windows = [(after, count) for after in [0.0, 5.0, 12.5, 20.0, 21.0] for count in [None, 0, 3]]
    for after, count in [*windows, (float("nan"), None)]:
        config = GetSessionConfig(after_timestamp=after, num_recent_events=count)
        got = await service.get_session(app_name=APP, user_id="u", session_id="s", config=config)
        want = await reference.get_session(app_name=APP, user_id="u", session_id="s", config=config)
        assert got is not None
        assert want is not None
        assert [e.id for e in got.events] == [e.id for e in want.events], (after, count)


async def test_listing_pages_through_equal_update_times(
    service: RedisSessionService, raw: redis_asyncio.Redis, prefix: str
) -> None:
    ids = [f"s{i}" for i in range(7)]
    for user in ["u1", "u2"]:
        for session_id in ids:
            await service.create_session(app_name=APP, user_id=user, session_id=session_id)
    base = f"{prefix}{{{APP}}}"
    # Force every session onto one update time: the token must still be exact.
    for user in ["u1", "u2"]:
        await raw.zadd(f"{base}:sessions:{user}", {session_id: 1000.5 for session_id in ids})
    await raw.zadd(f"{base}:sessions", {f"{u}:{s}": 1000.5 for u in ["u1", "u2"] for s in ids})
    for user_id, expected in [("u1", [("u1", s) for s in ids]), (None, None)]:
        seen: list[tuple[str, str]] = []
        token = None
        while True:
            page = await service.list_sessions(
                app_name=APP, user_id=user_id, page_size=3, page_token=token
            )
            seen += [(s.user_id, s.id) for s in page.sessions]
            token = page.next_page_token
            if token is None:
                break
        want = expected or [(u, s) for u in ["u1", "u2"] for s in ids]
        assert sorted(seen) == sorted(want)
        assert len(seen) == len(set(seen))


async def test_listing_all_users_is_paginated(service: RedisSessionService) -> None:
    created = []
    for user in ["u1", "u2", "u3"]:
        for i in range(5):
            await service.create_session(app_name=APP, user_id=user, session_id=f"s{i}")
            created.append((user, f"s{i}"))
    pages = []
    token = None
    while True:
        page = await service.list_sessions(app_name=APP, page_size=4, page_token=token)
        pages.append([(s.user_id, s.id) for s in page.sessions])
        token = page.next_page_token
        if token is None:
            break
    assert [len(page) for page in pages] == [4, 4, 4, 3]
    flat = [item for page in pages for item in page]
    assert flat == list(reversed(created))  # most recently updated first


async def test_a_token_is_a_position_in_every_listing_of_the_app(
    service: RedisSessionService,
) -> None:
    # A token is the (update time, user, session) of the last session of a page: the app-wide
    # listing continues after that position, whichever listing issued it.
    for user in ["u", "v"]:
        for i in range(3):
            await service.create_session(app_name=APP, user_id=user, session_id=f"s{i}")
    page = await service.list_sessions(app_name=APP, user_id="u", page_size=1)
    assert page.next_page_token is not None
    rest = await service.list_sessions(app_name=APP, page_token=page.next_page_token)
    everything = await service.list_sessions(app_name=APP)
    keys = [(s.user_id, s.id) for s in everything.sessions]
    first = keys.index(("u", page.sessions[0].id))
    assert [(s.user_id, s.id) for s in rest.sessions] == keys[first + 1 :]


def test_a_prefix_with_braces_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="key_prefix"):
        RedisSessionService("redis://127.0.0.1:6379/0", key_prefix="adk:{x}:")


async def test_large_deltas_are_applied_in_full(service: RedisSessionService) -> None:
    # The scripts write hash fields in chunks; every key of a big delta must arrive.
    state = {f"k{i}": i for i in range(450)} | {f"app:a{i}": i for i in range(230)}
    session = await service.create_session(app_name=APP, user_id="u", session_id="s", state=state)
    assert session.state == state
    delta = {f"k{i}": -i for i in range(301)} | {f"user:u{i}": [i] for i in range(205)}
    await service.append_event(session, event(delta=delta))
    loaded = await service.get_session(app_name=APP, user_id="u", session_id="s")
    assert loaded is not None
    assert loaded.state == state | delta
    assert loaded.revision == 1
