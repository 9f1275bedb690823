"""Fixtures of the Redis backend tests: a private key prefix per test, removed afterwards."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as redis_asyncio
from google.genai import types

from adk_runtime.events import Event, EventActions
from adk_runtime.sessions import RedisSessionService
from tests.backends import REDIS_URL, drop_redis_prefix, redis_test_prefix

APP = "app"


@pytest.fixture
async def prefix() -> AsyncIterator[str]:
    value = redis_test_prefix()
    try:
        yield value
    finally:
        await drop_redis_prefix(value)


@pytest.fixture
async def raw() -> AsyncIterator[redis_asyncio.Redis]:
    """A plain client for looking at what the service stored."""
    async with redis_asyncio.Redis.from_url(REDIS_URL, decode_responses=True) as client:
        yield client


@pytest.fixture
async def service(prefix: str) -> AsyncIterator[RedisSessionService]:
    async with RedisSessionService(REDIS_URL, key_prefix=prefix) as svc:
        yield svc


def event(text: str = "hi", delta: dict[str, Any] | None = None, **kwargs: Any) -> Event:
    return Event(
        invocation_id="inv",
        author="agent",
        content=types.Content(role="model", parts=[types.Part(text=text)]),
        actions=EventActions(state_delta=dict(delta or {})),
        **kwargs,
    )


async def keys_under(client: redis_asyncio.Redis, prefix: str) -> set[str]:
    """Every key under ``prefix`` (tests only: SCAN)."""
    return {key async for key in client.scan_iter(match=f"{prefix}*", count=1000)}
