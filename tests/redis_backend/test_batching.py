"""Scripts called at once share round trips on one server: each keeps its own outcome."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
import redis.asyncio as redis_asyncio

from adk_runtime.errors import BackendUnavailableError, SessionNotFoundError, StaleSessionError
from adk_runtime.sessions import RedisSessionService, Session
from adk_runtime.sessions.redis import _batching
from tests.backends import REDIS_URL
from tests.redis_backend.conftest import APP, event
from tests.redis_backend.proxy import FlakyProxy

pytestmark = pytest.mark.redis


class PipelineSpy:
    """Records the size of every pipeline the service's client sends."""

    def __init__(self, service: RedisSessionService) -> None:
        self.sizes: list[int] = []
        client: Any = service._link.client
        real = client.pipeline

        def pipeline(*args: Any, **kwargs: Any) -> Any:
            pipe = real(*args, **kwargs)
            send = pipe.execute

            async def execute(*a: Any, **k: Any) -> Any:
                self.sizes.append(len(pipe.command_stack))
                return await send(*a, **k)

            pipe.execute = execute
            return pipe

        client.pipeline = pipeline


class HeldScript:
    """A script whose next call sent on its own waits until :attr:`go` is set."""

    def __init__(self, script: Any, then: Callable[[], Awaitable[Any]] | None = None) -> None:
        self._then = then
        self.sha = script.sha
        self.script = script.script
        self._real = script
        self.go = asyncio.Event()
        self.entered = asyncio.Event()

    async def __call__(self, keys: Any, args: Any) -> Any:
        self.entered.set()
        await self.go.wait()
        reply = await self._real(keys, args)
        if self._then is not None:
            await self._then()
        return reply


async def settle(condition: Callable[[], bool]) -> None:
    """Let other tasks run until ``condition`` holds (a bounded number of loop turns)."""
    for _ in range(10_000):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError("the condition never held")


async def one_then_batch(
    service: RedisSessionService,
    first: Awaitable[Any],
    rest: list[Awaitable[Any]],
    then: Callable[[], Awaitable[Any]] | None = None,
) -> list[Any]:
    """Run ``first`` on the only lane, held until ``rest`` all wait in line; then let go.

    ``then`` runs after ``first``'s script, before the lane is free. Returns every outcome
    (exceptions included), ``first``'s first.
    """
    held = HeldScript(service._link.scripts.append, then)
    service._link.scripts = dataclasses.replace(service._link.scripts, append=held)  # type: ignore[arg-type]
    lane = asyncio.ensure_future(first)
    await held.entered.wait()
    waiting = asyncio.gather(*rest, return_exceptions=True)
    batcher = service._link.batcher
    assert batcher is not None
    await settle(lambda: batcher.waiting == len(rest))
    held.go.set()
    try:
        return [await lane, *await waiting]
    finally:
        service._link.scripts = dataclasses.replace(service._link.scripts, append=held._real)


@pytest.fixture
def one_lane(monkeypatch: pytest.MonkeyPatch) -> None:
    """Services built after this have one lane: a second call waits, so batches form."""
    monkeypatch.setattr(_batching, "LANES", 1)


@pytest.fixture
async def narrow(one_lane: None, prefix: str) -> AsyncIterator[RedisSessionService]:
    async with RedisSessionService(REDIS_URL, key_prefix=prefix) as service:
        yield service


async def _texts(service: RedisSessionService, session_id: str) -> list[str]:
    loaded = await service.get_session(app_name=APP, user_id="u", session_id=session_id)
    assert loaded is not None
    return [e.content.parts[0].text or "" for e in loaded.events if e.content and e.content.parts]


async def test_concurrent_appends_share_round_trips_and_all_land(
    service: RedisSessionService,
) -> None:
    spy = PipelineSpy(service)
    sessions = [
        await service.create_session(app_name=APP, user_id="u", session_id=f"s{k}")
        for k in range(40)
    ]

    async def conversation(session: Session) -> None:
        for i in range(10):
            await service.append_event(session, event(f"{session.id}-{i}", {"n": i}))

    await asyncio.gather(*(conversation(s) for s in sessions))
    assert spy.sizes
    assert max(spy.sizes) > 1  # calls waiting for a lane went out together
    assert sum(spy.sizes) <= 400
    for session in sessions:
        assert await _texts(service, session.id) == [f"{session.id}-{i}" for i in range(10)]
        assert (session.revision, session.state) == (10, {"n": 9})


async def test_each_call_of_a_batch_gets_its_own_outcome(narrow: RedisSessionService) -> None:
    spy = PipelineSpy(narrow)
    hot = await narrow.create_session(app_name=APP, user_id="u", session_id="hot")
    first = await narrow.get_session(app_name=APP, user_id="u", session_id="hot")
    second = await narrow.get_session(app_name=APP, user_id="u", session_id="hot")
    done = await narrow.create_session(app_name=APP, user_id="u", session_id="done")
    stored = event("already", {"d": 1})
    await narrow.append_event(done, stored)
    replayed = await narrow.get_session(app_name=APP, user_id="u", session_id="done")
    gone = await narrow.create_session(app_name=APP, user_id="u", session_id="gone")
    await narrow.delete_session(app_name=APP, user_id="u", session_id="gone")
    other = await narrow.create_session(app_name=APP, user_id="u", session_id="other")
    assert first is not None
    assert second is not None
    assert replayed is not None

    outcomes = await one_then_batch(
        narrow,
        narrow.append_event(other, event("lane", {"o": 1})),
        [
            narrow.append_event(first, event("wins", {"h": 1})),
            narrow.append_event(second, event("stale", {"h": 2})),
            narrow.append_event(replayed, stored.model_copy()),  # the same event id again
            narrow.append_event(gone, event("nowhere")),
        ],
    )
    assert spy.sizes == [4]  # the four that waited went out as one pipeline
    assert not isinstance(outcomes[0], BaseException)
    assert not isinstance(outcomes[1], BaseException)
    assert isinstance(outcomes[2], StaleSessionError)
    assert not isinstance(outcomes[3], BaseException)  # the same event id: already stored
    assert isinstance(outcomes[4], SessionNotFoundError)
    assert await _texts(narrow, "hot") == ["wins"]
    assert await _texts(narrow, "done") == ["already"]
    assert await _texts(narrow, "other") == ["lane"]
    assert hot.revision == 0


async def test_a_call_cancelled_while_waiting_is_never_sent(narrow: RedisSessionService) -> None:
    spy = PipelineSpy(narrow)
    a = await narrow.create_session(app_name=APP, user_id="u", session_id="a")
    b = await narrow.create_session(app_name=APP, user_id="u", session_id="b")
    held = HeldScript(narrow._link.scripts.append)
    narrow._link.scripts = dataclasses.replace(narrow._link.scripts, append=held)  # type: ignore[arg-type]
    running = asyncio.ensure_future(narrow.append_event(a, event("sent")))
    await held.entered.wait()  # it holds the only lane
    waiting = asyncio.ensure_future(narrow.append_event(b, event("never")))
    batcher = narrow._link.batcher
    assert batcher is not None
    await settle(lambda: batcher.waiting == 1)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    held.go.set()
    await running
    await settle(lambda: batcher.waiting == 0)
    await asyncio.sleep(0.05)  # a lane that took the cancelled call would have sent it now
    assert spy.sizes == []
    assert await _texts(narrow, "a") == ["sent"]
    assert await _texts(narrow, "b") == []
    await narrow.append_event(b, event("later"))  # the line is free again
    assert await _texts(narrow, "b") == ["later"]


async def test_a_batch_after_script_flush_loads_the_script_and_runs_once(
    narrow: RedisSessionService, raw: redis_asyncio.Redis
) -> None:
    sessions = [
        await narrow.create_session(app_name=APP, user_id="u", session_id=f"s{k}") for k in range(6)
    ]
    spy = PipelineSpy(narrow)
    outcomes = await one_then_batch(
        narrow,
        narrow.append_event(sessions[0], event("s0", {"k": "s0"})),
        [narrow.append_event(s, event(s.id, {"k": s.id})) for s in sessions[1:]],
        then=raw.script_flush,  # the server forgets its scripts before the batch goes out
    )
    assert not [o for o in outcomes if isinstance(o, BaseException)]
    assert spy.sizes == [5, 5]  # NOSCRIPT for all five; loaded; the five again
    for session in sessions:
        assert await _texts(narrow, session.id) == [session.id]
        assert session.revision == 1


@pytest.fixture
async def behind_proxy(
    one_lane: None, prefix: str
) -> AsyncIterator[tuple[FlakyProxy, RedisSessionService, list[Session]]]:
    """A one-lane service through a proxy that can cut connections, with five sessions."""
    async with (
        FlakyProxy() as proxy,
        RedisSessionService(proxy.url, key_prefix=prefix) as service,
    ):
        sessions = [
            await service.create_session(app_name=APP, user_id="u", session_id=f"s{k}")
            for k in range(5)
        ]
        yield proxy, service, sessions


async def test_a_batch_whose_replies_are_lost_is_sent_again_without_doubling(
    behind_proxy: tuple[FlakyProxy, RedisSessionService, list[Session]],
) -> None:
    proxy, service, sessions = behind_proxy
    spy = PipelineSpy(service)
    proxy.cut_on = b"s4"  # the batch (its last call names session s4): ran, replies lost
    items = [event(f"once-{s.id}", {"k": 1}) for s in sessions]
    returned = await one_then_batch(
        service,
        service.append_event(sessions[0], items[0]),
        [service.append_event(s, item) for s, item in zip(sessions[1:], items[1:], strict=True)],
    )
    assert proxy.cuts == 1
    assert spy.sizes[0] == 4
    assert [r.id for r in returned] == [item.id for item in items]
    for session in sessions:
        assert await _texts(service, session.id) == [f"once-{session.id}"]
        assert session.revision == 1


async def test_a_batch_on_a_server_that_went_away_fails_every_call_cleanly(
    behind_proxy: tuple[FlakyProxy, RedisSessionService, list[Session]],
) -> None:
    proxy, service, sessions = behind_proxy
    proxy.cut_on = b"s4"  # the batch never reaches Redis, and the server stays away
    proxy.cut_before_forwarding = True
    proxy.refuse_after_cut = True
    outcomes = await one_then_batch(
        service,
        service.append_event(sessions[0], event("alone")),
        [service.append_event(s, event("lost")) for s in sessions[1:]],
    )
    assert not isinstance(outcomes[0], BaseException)  # sent alone before the cut
    assert all(isinstance(o, BackendUnavailableError) for o in outcomes[1:]), outcomes
    proxy.accepting = True
    for session in sessions[1:]:
        assert await _texts(service, session.id) == []
        assert session.revision == 0


async def test_a_call_whose_arguments_cannot_be_encoded_fails_alone() -> None:
    client = redis_asyncio.Redis.from_url(REDIS_URL)
    try:
        echo = client.register_script("return ARGV[1]")
        batcher = _batching.ScriptBatcher(client, lanes=1)
        words = ["a", "b", "c\ud800", "d", "e"]  # a lone surrogate has no UTF-8 encoding

        outcomes = await asyncio.gather(
            *(batcher.call(echo, [], [word]) for word in words), return_exceptions=True
        )

        assert isinstance(outcomes[2], UnicodeEncodeError)
        assert [o for k, o in enumerate(outcomes) if k != 2] == [b"a", b"b", b"d", b"e"]
    finally:
        await client.aclose()
