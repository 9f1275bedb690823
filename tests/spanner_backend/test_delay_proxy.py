"""Round trips on the wire: each step's calls counted by the delay proxy, as PostgreSQL's are.

``bench rtt`` counts PostgreSQL's and Redis's round trips with :class:`bench.delay_proxy.
DelayProxy`; here the same proxy stands between the service and the emulator (gRPC over one
TCP connection, counted with ``protocol="http2"`` so HTTP/2's own pings and window updates
start no round trip). The counts are the issue's promises: an append ≤ 2, a read and a page
of a listing 1; a turn is 2 to start (claim, read and the user's message in one
transaction), 2 per event after it, the last also releasing the claim.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Iterator
from typing import Any

import pytest
from google.genai import types

from adk_runtime.events import Event, EventActions
from adk_runtime.sessions.spanner import SpannerSessionService
from bench.delay_proxy import DelayProxy
from tests.spanner_support import Emulator

APP = "app"


@pytest.fixture(scope="module")
def proxy(spanner_emulator: Emulator) -> Iterator[DelayProxy]:
    """A 2 ms delay proxy in front of the emulator, counting gRPC calls' round trips."""
    with DelayProxy(int(spanner_emulator.host.rsplit(":", 1)[1]), 2.0, protocol="http2") as made:
        yield made


@pytest.fixture
async def proxied(
    service: SpannerSessionService, database: str, proxy: DelayProxy
) -> AsyncIterator[SpannerSessionService]:
    """A second service on the same database (schema made), reached through the proxy."""
    made = SpannerSessionService(database, emulator_host=f"127.0.0.1:{proxy.port}")
    async with made:
        await made.list_sessions(app_name=APP)  # the channel and the pool's sessions exist now
        yield made


def _event(text: str, **delta: object) -> Event:
    return Event(
        author="user",
        content=types.Content(role="user", parts=[types.Part(text=text)]),
        actions=EventActions(state_delta=dict(delta)),
    )


async def _wire(proxy: DelayProxy, call: Awaitable[Any]) -> int:
    before = proxy.round_trips
    await call
    return proxy.round_trips - before


async def test_each_operation_crosses_the_link_as_often_as_promised(
    proxied: SpannerSessionService, proxy: DelayProxy
) -> None:
    service = proxied
    create = service.create_session(app_name=APP, user_id="u", session_id="s")
    assert await _wire(proxy, create) == 2
    session = await service.get_session(app_name=APP, user_id="u", session_id="s")
    assert session is not None
    for n in range(3):
        assert await _wire(proxy, service.append_event(session, _event(f"e{n}", k=n))) == 2
    scoped = _event("scoped", **{"app:a": 1, "user:b": 2, "c": 3})
    assert await _wire(proxy, service.append_event(session, scoped)) == 2
    read = service.get_session(app_name=APP, user_id="u", session_id="s")
    assert await _wire(proxy, read) == 1
    for n in range(25):
        await service.create_session(app_name=APP, user_id="lister", session_id=f"l{n}")
    page = service.list_sessions(app_name=APP, user_id="lister", page_size=20)
    assert await _wire(proxy, page) == 1
    app_wide = service.list_sessions(app_name=APP, page_size=20)  # the sharded app index
    assert await _wire(proxy, app_wide) == 1
    delete = service.delete_session(app_name=APP, user_id="u", session_id="s")
    assert await _wire(proxy, delete) == 1
    assert await service.get_session(app_name=APP, user_id="u", session_id="s") is None


def _runner(service: SpannerSessionService) -> Any:
    """A Runner whose scripted model calls one tool, then answers: four events a turn."""
    from adk_runtime.agents import LlmAgent
    from adk_runtime.runners import Runner
    from adk_runtime.testing import ScriptedModel, function_call

    def lookup(city: str) -> dict[str, str]:
        """The weather in a city."""
        return {"city": city, "weather": "sunny"}

    def reply(request: Any) -> Any:
        if request.contents[-1].parts[-1].function_response is not None:
            return "It is sunny."
        return function_call("lookup", {"city": "Paris"})

    agent = LlmAgent(name="assistant", model=ScriptedModel(handler=reply), tools=[lookup])
    return Runner(app_name=APP, agent=agent, session_service=service)


async def test_a_turn_is_two_round_trips_to_start_and_two_per_event_after(
    proxied: SpannerSessionService, proxy: DelayProxy
) -> None:
    runner = _runner(proxied)
    for n in range(2):
        await proxied.create_session(app_name=APP, user_id="t", session_id=f"t{n}")
        message = types.Content(role="user", parts=[types.Part(text="weather?")])
        before = proxy.round_trips
        events = [
            event
            async for event in runner.run_async(
                user_id="t", session_id=f"t{n}", new_message=message
            )
        ]
        trips = proxy.round_trips - before
        assert len(events) == 3  # the call, the tool's response, the answer
        # claim + read + the message (2); the call (2); the response (2); the answer with
        # the release (2)
        assert trips == 8
        stored = await proxied.get_session(app_name=APP, user_id="t", session_id=f"t{n}")
        assert stored is not None
        assert len(stored.events) == 4
