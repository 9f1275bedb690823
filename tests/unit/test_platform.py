"""adk_runtime.platform: a run under set providers is reproducible, and contexts stay apart."""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import random
import threading
from collections.abc import Iterator

import pytest
from google.genai import types

from adk_runtime import platform
from adk_runtime.agents import LlmAgent
from adk_runtime.artifacts import InMemoryArtifactService
from adk_runtime.events import Event
from adk_runtime.platform import thread as platform_thread
from adk_runtime.platform import time as platform_time
from adk_runtime.platform import uuid as platform_uuid
from adk_runtime.runners import InMemoryRunner
from adk_runtime.testing import ScriptedModel

MOMENT = 1_800_000_000.5


@pytest.fixture
def providers() -> Iterator[None]:
    counter = itertools.count(1)
    platform_uuid.set_id_provider(lambda: f"id-{next(counter)}")
    platform_time.set_time_provider(lambda: MOMENT)
    try:
        yield
    finally:
        platform_uuid.reset_id_provider()
        platform_time.reset_time_provider()


def lookup(city: str) -> dict[str, str]:
    """Look the weather up."""
    return {"city": city, "sky": "clear"}


def _call_without_id() -> types.Content:
    call = types.FunctionCall(name="lookup", args={"city": "Oslo"})
    return types.Content(role="model", parts=[types.Part(function_call=call)])


async def _run_once() -> list[Event]:
    model = ScriptedModel(replies=[_call_without_id(), "It is clear."])
    runner = InMemoryRunner(LlmAgent(name="agent", model=model, tools=[lookup]))
    session = await runner.session_service.create_session(app_name=runner.app_name, user_id="u")
    message = types.Content(role="user", parts=[types.Part(text="weather?")])
    events = [
        event
        async for event in runner.run_async(user_id="u", session_id=session.id, new_message=message)
    ]
    await runner.close()
    return events


async def test_a_run_under_set_providers_is_reproducible(providers: None) -> None:
    first = await _run_once()
    platform_uuid.set_id_provider(iter(f"id-{n}" for n in itertools.count(1)).__next__)
    second = await _run_once()
    shape = [
        (e.id, e.invocation_id, e.timestamp, [c.id for c in e.get_function_calls()]) for e in first
    ]
    assert shape == [
        (e.id, e.invocation_id, e.timestamp, [c.id for c in e.get_function_calls()]) for e in second
    ]
    assert {e.timestamp for e in first} == {MOMENT}
    assert all(e.invocation_id.startswith("e-id-") for e in first)
    calls = [c for e in first for c in e.get_function_calls()]
    assert len(calls) == 1
    assert calls[0].id.startswith("adk-id-")
    assert all(e.id.startswith("id-") for e in first)


async def test_artifacts_are_stamped_with_the_provider_time(providers: None) -> None:
    service = InMemoryArtifactService()
    where = {"app_name": "a", "user_id": "u", "session_id": "s", "filename": "f.txt"}
    await service.save_artifact(artifact=types.Part(text="x"), **where)
    version = await service.get_artifact_version(**where)
    assert version is not None
    assert version.create_time == MOMENT


async def test_a_provider_stays_in_its_own_context() -> None:
    async def stamped(moment: float) -> float:
        platform_time.set_time_provider(lambda: moment)
        await asyncio.sleep(0)  # the other task sets its provider in between
        return Event(author="x").timestamp

    assert await asyncio.gather(stamped(1.0), stamped(2.0)) == [1.0, 2.0]
    assert Event(author="x").timestamp > 2.0  # this context never set one


def test_create_thread_makes_an_unstarted_thread_with_the_arguments() -> None:
    seen: list[tuple[object, ...]] = []
    thread = platform_thread.create_thread(lambda *a, **k: seen.append((a, k)), 1, 2, key="v")
    assert isinstance(thread, threading.Thread)
    assert not thread.is_alive()
    thread.start()
    thread.join()
    assert seen == [((1, 2), {"key": "v"})]


def test_a_seeded_random_provider_gives_its_sequence_in_its_context_only() -> None:
    seeded = random.Random(7)
    expected = random.Random(7).random()
    platform.set_random_provider(lambda: seeded)
    try:
        assert platform.get_random().random() == expected
        assert platform.get_random() is seeded
        elsewhere = contextvars.Context().run(platform.get_random)
        assert elsewhere is not seeded
    finally:
        platform.reset_random_provider()
    assert platform.get_random() is not seeded
