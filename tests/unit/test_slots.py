"""Slots: bounded holders, served in arrival order, freed slots handed to the first waiter."""

from __future__ import annotations

import asyncio

from adk_runtime._slots import Slots


async def test_waiters_are_served_in_arrival_order_and_newcomers_queue_behind() -> None:
    slots = Slots(1)
    assert await slots.acquire(1.0)
    served: list[str] = []

    async def waiter(name: str) -> None:
        assert await slots.acquire(5.0)
        served.append(name)
        await asyncio.sleep(0)
        slots.release()

    tasks = [asyncio.create_task(waiter(name)) for name in ("a", "b", "c")]
    await asyncio.sleep(0.01)  # all three wait now
    slots.release()
    # A newcomer arriving right after the release must not take the slot handed to "a".
    late = asyncio.create_task(waiter("late"))
    await asyncio.gather(*tasks, late)
    assert served == ["a", "b", "c", "late"]
    assert await slots.acquire(0.01)  # every slot came back


async def test_a_waiter_whose_time_runs_out_gets_no_slot_and_takes_none() -> None:
    slots = Slots(1)
    assert await slots.acquire(1.0)
    assert not await slots.acquire(0.02)
    slots.release()
    assert await slots.acquire(0.02)  # the expired waiter did not swallow the released slot


async def test_a_cancelled_waiter_passes_its_slot_on() -> None:
    slots = Slots(1)
    assert await slots.acquire(1.0)
    cancelled = asyncio.create_task(slots.acquire(5.0))
    behind = asyncio.create_task(slots.acquire(5.0))
    await asyncio.sleep(0.01)
    slots.release()  # handed to `cancelled`...
    cancelled.cancel()  # ...which is cancelled before it runs: the slot goes to `behind`
    await asyncio.gather(cancelled, return_exceptions=True)
    assert await asyncio.wait_for(behind, 1.0)
    assert not await slots.acquire(0.02)  # `behind` holds the only slot
