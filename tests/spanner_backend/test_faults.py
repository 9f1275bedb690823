"""Contention and lost connections on Spanner: each event stored once, nothing half-written.

Two service objects (two processes' worth of clients) append the same events to one session at
once: the emulator aborts one of two concurrent read-write transactions, the service runs it
again with the same event id, and the retry finds the event stored (never a second copy). A
connection cut between a transaction's query and its commit is ``BackendUnavailableError`` and
leaves nothing behind.
"""

from __future__ import annotations

import asyncio

import pytest
from google.genai import types

from adk_runtime.errors import BackendUnavailableError, SessionBusyError
from adk_runtime.events import Event
from adk_runtime.sessions.spanner import SpannerSessionService
from adk_runtime.sessions.spanner._link import Transaction
from tests.redis_backend.proxy import FlakyProxy
from tests.spanner_support import Emulator

APP = "app"


def _event(text: str) -> Event:
    return Event(author="user", content=types.Content(role="user", parts=[types.Part(text=text)]))


async def test_concurrent_appenders_of_the_same_events_store_each_once(
    spanner_emulator: Emulator, database: str, service: SpannerSessionService
) -> None:
    await service.create_session(app_name=APP, user_id="u", session_id="s")
    others = [
        SpannerSessionService(database, emulator_host=spanner_emulator.host) for _ in range(3)
    ]
    services = [service, *others]
    try:
        events = [_event(f"e{n}") for n in range(5)]
        for event in events:

            async def append(writer: SpannerSessionService, event: Event = event) -> bool:
                session = await writer.get_session(app_name=APP, user_id="u", session_id="s")
                assert session is not None
                stored = await writer.append_event(session, event.model_copy(deep=True))
                return stored.id == event.id

            assert all(await asyncio.gather(*(append(writer) for writer in services)))
        assert sum(writer._link.aborted for writer in services) > 0  # real contention
        stored = await service.get_session(app_name=APP, user_id="u", session_id="s")
        assert stored is not None
        assert [e.id for e in stored.events] == [e.id for e in events]  # each exactly once
        assert stored.revision == len(events)
    finally:
        for other in others:
            await other.close()


async def test_concurrent_claimers_one_wins(
    spanner_emulator: Emulator, database: str, service: SpannerSessionService
) -> None:
    await service.create_session(app_name=APP, user_id="u", session_id="s")
    others = [
        SpannerSessionService(database, emulator_host=spanner_emulator.host) for _ in range(3)
    ]
    try:

        async def claim(claimer: SpannerSessionService) -> int | None:
            try:
                attempt = await claimer._try_claim((APP, "u", "s"), 30.0)
            except SessionBusyError:
                return None
            return attempt.token

        tokens = await asyncio.gather(*(claim(c) for c in [service, *others]))
        assert len([t for t in tokens if t is not None]) == 1
    finally:
        for other in others:
            await other.close()


async def test_a_connection_cut_before_the_commit_writes_nothing(
    spanner_emulator: Emulator,
    database: str,
    service: SpannerSessionService,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    host, port = spanner_emulator.host.split(":")
    session = await service.create_session(app_name=APP, user_id="u", session_id="s")
    async with FlakyProxy(host, int(port)) as proxy:
        cut = SpannerSessionService(database, emulator_host=f"127.0.0.1:{proxy.port}", timeout=3)
        finish = Transaction._finish

        async def cut_then_commit(transaction: Transaction) -> None:
            proxy.accepting = False  # the server is gone for this client from here
            for task in list(proxy._tasks):
                task.cancel()
            await asyncio.sleep(0.1)
            await finish(transaction)

        try:
            mine = await cut.get_session(app_name=APP, user_id="u", session_id="s")
            assert mine is not None
            monkeypatch.setattr(Transaction, "_finish", cut_then_commit)
            with pytest.raises(BackendUnavailableError):
                await cut.append_event(mine, _event("lost"))
            monkeypatch.undo()
            assert (mine.revision, mine.events) == (0, [])
        finally:
            await cut.close()
    stored = await service.get_session(app_name=APP, user_id="u", session_id="s")
    assert stored is not None
    assert (stored.revision, stored.events) == (0, [])
    # The session is usable again (the abandoned transaction holds nothing for good).
    await service.append_event(session, _event("next"))
    assert session.revision == 1
