"""Code run in separate OS processes by the cross-process tests (spawned, so importable)."""

from __future__ import annotations

import asyncio
from typing import Any

from adk_runtime.errors import StaleSessionError
from adk_runtime.events import Event, EventActions
from adk_runtime.sessions import DatabaseSessionService


def stale_writer(url: str, index: int, rounds: int, barrier: Any, results: Any) -> None:
    """Each round: load the session, wait for the rival, append at the same moment."""

    async def main() -> None:
        async with DatabaseSessionService(url) as service:
            for round_ in range(rounds):
                session = await service.get_session(app_name="a", user_id="u", session_id="s")
                assert session is not None
                await asyncio.to_thread(barrier.wait)
                event = Event(
                    author=f"w{index}",
                    invocation_id=f"r{round_}",
                    actions=EventActions(state_delta={"last": index, f"w{index}": round_}),
                )
                try:
                    await service.append_event(session, event)
                    outcome = "won"
                except StaleSessionError:
                    outcome = "stale"
                results.put((round_, index, outcome, session.revision))
                await asyncio.to_thread(barrier.wait)

    asyncio.run(main())


def scope_writer(url: str, index: int, count: int, barrier: Any) -> None:
    """Write distinct ``user:`` and ``app:`` keys from this process's own session."""

    async def main() -> None:
        async with DatabaseSessionService(url) as service:
            session = await service.create_session(
                app_name="a", user_id="u", session_id=f"s{index}"
            )
            await asyncio.to_thread(barrier.wait)
            for n in range(count):
                delta = {f"user:p{index}_{n}": n, f"app:p{index}_{n}": n}
                await service.append_event(
                    session, Event(author="w", actions=EventActions(state_delta=delta))
                )

    asyncio.run(main())
