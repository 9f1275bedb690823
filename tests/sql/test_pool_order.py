"""Callers waiting for a pooled connection are served in arrival order (no barging).

Under load the pool's own wait let a caller that arrived just as a connection came back
take it ahead of callers already waiting, who then queued again at the back: a few waited
many times longer than the rest (p99 at 64 conversations was 25x p50 on PostgreSQL).
"""

from __future__ import annotations

import asyncio
import itertools

from sqlalchemy import text

from adk_runtime.sql import Database, create_engine


async def test_waiting_callers_are_served_in_arrival_order(sql_url: str) -> None:
    db = Database(create_engine(sql_url, pool_size=2, max_overflow=0), owns_engine=True)
    tickets = itertools.count()
    served: list[int] = []

    async def caller() -> None:
        for _ in range(5):
            ticket = next(tickets)  # taken with no await before asking for a connection
            async with db.autocommit() as connection:
                served.append(ticket)
                await connection.execute(text("SELECT 1"))

    async def warm() -> None:  # both connections open: opening one is not waiting for one
        async with db.autocommit() as connection:
            await connection.execute(text("SELECT 1"))
            await asyncio.sleep(0.05)

    try:
        await asyncio.gather(warm(), warm())
        await asyncio.gather(*(caller() for _ in range(40)))
    finally:
        await db.dispose()
    assert len(served) == 200
    assert served == sorted(served)
