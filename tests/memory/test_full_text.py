"""What only the SQL memory stores do: stemming, ranking by relevance, the result limit."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from google.genai import types

from adk_runtime.events import Event
from adk_runtime.memory import BaseMemoryService
from adk_runtime.memory.database import DatabaseMemoryService
from adk_runtime.sessions import Session
from tests.memory.conftest import MEMORY_STORES

# The SQL stores' full-text search (stemming, term-frequency ranking); the in-memory and
# Spanner stores match words exactly (adk_runtime/memory/spanner.py says why).
SQL_STORES = [store.param() for store in MEMORY_STORES if store.name in ("sqlite", "postgres")]


@pytest.fixture(params=SQL_STORES)
async def sql_memory(request: pytest.FixtureRequest) -> AsyncIterator[BaseMemoryService]:
    async with request.param.open(request) as service:
        yield service


def remembered(*texts: str, user: str = "alice") -> Session:
    events = [
        Event(author="user", content=types.Content(parts=[types.Part(text=text)])) for text in texts
    ]
    return Session(id="s1", app_name="app", user_id=user, events=events)


async def texts(service: BaseMemoryService, query: str) -> list[str]:
    response = await service.search_memory(app_name="app", user_id="alice", query=query)
    return [entry.content.parts[0].text or "" for entry in response.memories if entry.content.parts]


async def test_words_match_their_other_forms(sql_memory: BaseMemoryService) -> None:
    await sql_memory.add_session_to_memory(remembered("I booked two flights", "Cats sleep a lot"))
    assert await texts(sql_memory, "booking a flight") == ["I booked two flights"]
    assert await texts(sql_memory, "cat sleeping") == ["Cats sleep a lot"]


async def test_more_relevant_entries_rank_first(sql_memory: BaseMemoryService) -> None:
    await sql_memory.add_session_to_memory(
        remembered(
            "the garden has roses",
            "roses roses roses in the garden of roses",
            "the kitchen is small",
        )
    )
    found = await texts(sql_memory, "roses")
    assert found == ["roses roses roses in the garden of roses", "the garden has roses"]


@pytest.mark.sqlite
async def test_results_are_capped_at_max_results(tmp_path: Any) -> None:
    service = DatabaseMemoryService(f"sqlite+aiosqlite:///{tmp_path / 'm.db'}", max_results=3)
    try:
        await service.add_session_to_memory(remembered(*[f"note {i} about tea" for i in range(10)]))
        assert len(await texts(service, "tea")) == 3
    finally:
        await service.close()


@pytest.mark.parametrize("bad", [0, -1, True, "10"])
def test_max_results_must_be_positive(bad: Any) -> None:
    with pytest.raises(ValueError, match="max_results"):
        DatabaseMemoryService("sqlite+aiosqlite:///unused.db", max_results=bad)
