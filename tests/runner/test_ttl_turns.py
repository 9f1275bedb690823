"""Idle TTL and running turns (issue 48, defect 3): a session a turn holds is never idle.

On every store with an idle TTL (``ttl_seconds``: SQLite, PostgreSQL, Redis, Spanner), a turn whose
step takes longer than the TTL, without writing, keeps its session: readers see it, the
turn commits its answer, and the conversation is still there afterwards.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from google.genai import types

from adk_runtime.agents import InvocationContext
from adk_runtime.events import Event
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedAgent, text_event
from tests.stores import durable_params, fresh_store

APP = "ttl_turns"
TTL = 1.0
STEP = 1.5  # longer than the TTL, with no write in between


@pytest.fixture(params=durable_params())
async def expiring(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[BaseSessionService]:
    async with fresh_store(request.param, tmp_path) as store:
        store.kwargs["ttl_seconds"] = TTL
        async with store.open() as service:
            yield service


def _message(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


def _texts(events: list[Event]) -> list[str]:
    return [(e.content.parts[0].text or "") for e in events if e.content and e.content.parts]


@pytest.mark.parametrize("lease", [0.6, 20.0], ids=["renewed", "one-lease"])
async def test_a_turn_longer_than_the_ttl_keeps_its_session(
    expiring: BaseSessionService, lease: float
) -> None:
    service = expiring
    await service.create_session(app_name=APP, user_id="u", session_id="s")
    seen: dict[str, object] = {}

    async def slow_tool(ctx: InvocationContext) -> Event:
        await asyncio.sleep(STEP)  # the TTL runs out meanwhile (renewals every lease / 3)
        found = await service.get_session(app_name=APP, user_id="u", session_id="s")
        listed = await service.list_sessions(app_name=APP, user_id="u")
        running = await service.list_interrupted_invocations(
            app_name=APP, user_id="u", include_running=True
        )
        seen.update(
            found=found is not None,
            listed=[s.id for s in listed.sessions],
            running=[item.invocation_id for item in running],
        )
        return text_event("done")

    runner = Runner(
        app_name=APP,
        agent=ScriptedAgent(name="bot", script=[slow_tool]),
        session_service=service,
        session_lease_seconds=lease,
    )
    events = [
        e async for e in runner.run_async(user_id="u", session_id="s", new_message=_message("go"))
    ]
    assert _texts(events) == ["done"]
    assert seen["found"] is True
    assert seen["listed"] == ["s"]
    assert seen["running"] == [events[0].invocation_id]
    stored = await service.get_session(app_name=APP, user_id="u", session_id="s")
    assert stored is not None
    assert _texts(stored.events) == ["go", "done"]
    # Idle again after the turn: it expires a TTL after its last write, as before.
    await asyncio.sleep(TTL + 0.3)
    assert await service.get_session(app_name=APP, user_id="u", session_id="s") is None
