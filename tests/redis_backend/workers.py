"""Code run in separate OS processes by test_processes.py (spawned, so importable by name)."""

from __future__ import annotations

import asyncio
from typing import Any

from adk_runtime.errors import StaleSessionError
from adk_runtime.events import Event, EventActions
from adk_runtime.sessions import GetSessionConfig, RedisSessionService

APP = "app"


def race_one_session(url: str, prefix: str, name: str, rounds: int, barrier: Any, out: Any) -> None:
    """Each round: load the shared session, wait for the rival, append; report who won."""
    out.put(asyncio.run(_race(url, prefix, name, rounds, barrier)))


async def _race(url: str, prefix: str, name: str, rounds: int, barrier: Any) -> list[Any]:
    results = []
    async with RedisSessionService(url, key_prefix=prefix) as service:
        for round_no in range(rounds):
            session = await service.get_session(
                app_name=APP,
                user_id="u",
                session_id="shared",
                config=GetSessionConfig(num_recent_events=0),
            )
            assert session is not None
            loaded = session.revision
            await asyncio.to_thread(barrier.wait)  # both hold the same revision now
            event = Event(
                id=f"r{round_no}-{name}",
                author=name,
                actions=EventActions(state_delta={"winner": name, f"user:{name}": round_no}),
            )
            try:
                await service.append_event(session, event)
                won = True
            except StaleSessionError:
                won = False
            results.append((round_no, loaded, won))
            await asyncio.to_thread(barrier.wait)  # the round is over for both
    return results


def write_distinct_keys(
    url: str, prefix: str, index: int, count: int, barrier: Any, out: Any
) -> None:
    """Append ``count`` events to this process's own session, each writing new app/user keys."""
    out.put(asyncio.run(_write(url, prefix, index, count, barrier)))


async def _write(url: str, prefix: str, index: int, count: int, barrier: Any) -> int:
    async with RedisSessionService(url, key_prefix=prefix) as service:
        session = await service.create_session(
            app_name=APP, user_id=f"u{index // 2}", session_id=f"s{index}"
        )
        await asyncio.to_thread(barrier.wait)
        for j in range(count):
            delta = {f"app:p{index}_{j}": j, f"user:p{index}_{j}": j, "n": j}
            await service.append_event(
                session, Event(author=f"p{index}", actions=EventActions(state_delta=delta))
            )
        return session.revision
