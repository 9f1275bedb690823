"""What only the Spanner artifact and memory stores promise (the contracts run in
tests/artifacts and tests/memory): their URLs, round trips, size limits, schema and words."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from google.genai import types

from adk_runtime.artifacts import artifact_service_from_url
from adk_runtime.artifacts.spanner import SpannerArtifactService
from adk_runtime.errors import ConfigurationError, InputValidationError
from adk_runtime.events import Event
from adk_runtime.memory import memory_service_from_url
from adk_runtime.memory.spanner import SpannerMemoryService
from adk_runtime.sessions import Session
from adk_runtime.sessions.spanner._schema import open_admin
from adk_runtime.sessions.spanner.store import CELL_BYTES
from tests.spanner_support import Emulator

DATABASE = "projects/p1/instances/i1/databases/d1"
WHERE: dict[str, Any] = {"app_name": "app", "user_id": "u", "session_id": "s"}


@pytest.fixture
async def artifacts(spanner_emulator: Emulator, database: str) -> AsyncIterator[Any]:
    async with SpannerArtifactService(database, emulator_host=spanner_emulator.host) as store:
        await store.prepare()
        yield store


@pytest.fixture
async def memory(spanner_emulator: Emulator, database: str) -> AsyncIterator[Any]:
    async with SpannerMemoryService(database, emulator_host=spanner_emulator.host) as store:
        await store.prepare()
        yield store


async def _cost(store: Any, call: Any) -> int:
    before = store.round_trips
    await call
    return int(store.round_trips - before)


def _blob(data: bytes) -> types.Part:
    return types.Part(inline_data=types.Blob(mime_type="application/octet-stream", data=data))


def _session(*texts: str) -> Session:
    events = [
        Event(author="user", content=types.Content(role="user", parts=[types.Part(text=t)]))
        for t in texts
    ]
    return Session(id="s", app_name="app", user_id="u", events=events)


@pytest.mark.parametrize("build", [artifact_service_from_url, memory_service_from_url])
def test_the_url_names_the_database_and_refuses_unknown_options(build: Any) -> None:
    service = build(f"spanner:///{DATABASE}?emulator_host=127.0.0.1:1&max_sessions=7&timeout=2")
    assert isinstance(service, (SpannerArtifactService, SpannerMemoryService))
    assert service.url == f"spanner:///{DATABASE}?emulator_host=127.0.0.1:1"
    assert (service._link._max_sessions, service._link._timeout) == (7, 2.0)
    with pytest.raises(ConfigurationError, match=r"Did you mean 'timeout'\?"):
        build(f"spanner:///{DATABASE}?timeot=3")
    with pytest.raises(ConfigurationError, match="Unknown option 'cache_bytes'"):
        build(f"spanner:///{DATABASE}?cache_bytes=100")  # the session cache's, not a store's
    with pytest.raises(ConfigurationError, match="not a Spanner database path"):
        build("spanner:///projects/p1")


async def test_the_schema_holds_the_artifact_and_memory_tables(
    artifacts: SpannerArtifactService, spanner_emulator: Emulator
) -> None:
    admin = open_admin(spanner_emulator.host)
    try:
        response = await admin.get_database_ddl(database=artifacts.database)
    finally:
        await admin.transport.close()  # type: ignore[no-untyped-call]
    ddl = "\n".join(response.statements)
    assert "INTERLEAVE IN PARENT adk_artifact_heads ON DELETE CASCADE" in ddl
    # The emulator lists the search index as a plain CREATE INDEX (without its partitioning).
    assert "INDEX adk_memory_by_word ON adk_memory_entries(words_tokens)" in ddl
    assert (await artifacts.schema_status()).up_to_date


async def test_artifact_steps_take_the_round_trips_they_promise(
    artifacts: SpannerArtifactService,
) -> None:
    await artifacts.list_artifact_keys(**WHERE)  # the pool's Spanner sessions exist from here
    save = artifacts.save_artifact(filename="a.bin", artifact=_blob(b"one"), **WHERE)
    assert await _cost(artifacts, save) == 2
    assert await _cost(artifacts, artifacts.load_artifact(filename="a.bin", **WHERE)) == 1
    assert (
        await _cost(artifacts, artifacts.load_artifact(filename="a.bin", version=0, **WHERE)) == 1
    )
    assert await _cost(artifacts, artifacts.list_versions(filename="a.bin", **WHERE)) == 1
    assert await _cost(artifacts, artifacts.list_artifact_keys(**WHERE)) == 1
    assert await _cost(artifacts, artifacts.delete_artifact(filename="a.bin", **WHERE)) == 2


async def test_memory_steps_take_the_round_trips_they_promise(
    memory: SpannerMemoryService,
) -> None:
    await memory.search_memory(app_name="app", user_id="u", query="warm")  # the pool is open
    assert await _cost(memory, memory.add_session_to_memory(_session("a warm day"))) == 2
    search = memory.search_memory(app_name="app", user_id="u", query="warm")
    assert await _cost(memory, search) == 1


async def test_an_artifact_larger_than_a_cell_is_refused_and_takes_no_version(
    artifacts: SpannerArtifactService,
) -> None:
    with pytest.raises(InputValidationError, match="10 MiB"):
        await artifacts.save_artifact(
            filename="big.bin", artifact=_blob(b"x" * (CELL_BYTES + 1)), **WHERE
        )
    assert await artifacts.list_versions(filename="big.bin", **WHERE) == []
    assert await artifacts.list_artifact_keys(**WHERE) == []
    full = bytes(range(256)) * (CELL_BYTES // 256)  # exactly a cell, every byte value
    assert await artifacts.save_artifact(filename="big.bin", artifact=_blob(full), **WHERE) == 0
    loaded = await artifacts.load_artifact(filename="big.bin", **WHERE)
    assert loaded is not None
    assert loaded.inline_data is not None
    assert loaded.inline_data.data == full


async def test_an_event_larger_than_a_cell_is_refused_and_nothing_is_remembered(
    memory: SpannerMemoryService,
) -> None:
    with pytest.raises(InputValidationError, match="10 MiB"):
        await memory.add_session_to_memory(_session("small warm day", "warm " * CELL_BYTES))
    response = await memory.search_memory(app_name="app", user_id="u", query="warm")
    assert response.memories == []


async def test_words_in_any_script_are_found_exactly(memory: SpannerMemoryService) -> None:
    await memory.add_session_to_memory(
        _session("Un café près de la gare", "東京 中文 words_with_underscores", "two flights")
    )

    async def found(query: str) -> list[str]:
        response = await memory.search_memory(app_name="app", user_id="u", query=query)
        return [
            entry.content.parts[0].text or "" for entry in response.memories if entry.content.parts
        ]

    assert await found("CAFÉ") == ["Un café près de la gare"]
    assert await found("中文") == ["東京 中文 words_with_underscores"]
    assert await found("words_with_underscores") == ["東京 中文 words_with_underscores"]
    assert await found("words") == []  # a word is matched whole
    assert await found("flight") == []  # and literally: no stemming


async def test_a_long_session_is_remembered_in_several_commits(
    memory: SpannerMemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    from adk_runtime.memory import spanner as memory_module

    monkeypatch.setattr(memory_module, "BATCH_ROWS", 3)
    session = _session(*[f"note {i} about tea" for i in range(8)])
    await memory.add_session_to_memory(session)
    await memory.add_session_to_memory(session)
    response = await memory.search_memory(app_name="app", user_id="u", query="tea")
    assert sorted(entry.id or "" for entry in response.memories) == sorted(
        event.id for event in session.events
    )


def test_the_command_line_keeps_artifacts_in_the_spanner_database() -> None:
    from adk_runtime.cli._services import artifact_service_for, default_artifact_url

    session_url = f"spanner:///{DATABASE}?emulator_host=127.0.0.1:1&cache_bytes=100&timeout=2"
    url = default_artifact_url(session_url)
    assert url == f"spanner:///{DATABASE}?emulator_host=127.0.0.1:1&timeout=2"
    service = artifact_service_for(None, session_url)
    assert isinstance(service, SpannerArtifactService)
    assert service.database == DATABASE
