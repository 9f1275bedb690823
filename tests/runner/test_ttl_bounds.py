"""Idle TTLs and durations at the edges (issue 48, defect 9) on every store with a TTL.

A TTL longer than any session has lived means nothing expires (no overflow anywhere a time is
computed from it); a TTL that is not a positive finite number is a ConfigurationError.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from adk_runtime.errors import ConfigurationError
from adk_runtime.events import Event, EventActions
from adk_runtime.sessions import session_service_from_url
from tests.stores import Store, durable_params, fresh_store

APP = "ttl_bounds"


@pytest.fixture(params=durable_params())
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    async with fresh_store(request.param, tmp_path) as store:
        yield store


@pytest.mark.parametrize("ttl", [1e10, 1e12, 1e300])
async def test_a_huge_ttl_expires_nothing(store: Store, ttl: float) -> None:
    async with session_service_from_url(store.url, **store.kwargs, ttl_seconds=ttl) as service:
        session = await service.create_session(app_name=APP, user_id="u", session_id="s")
        async with service.claim_session(app_name=APP, user_id="u", session_id="s") as claim:
            session._fence = claim.token
            delta = EventActions(state_delta={"k": 1})
            await service.append_event(session, Event(author="x", actions=delta))
        found = await service.get_session(app_name=APP, user_id="u", session_id="s")
        assert found is not None
        assert found.state == {"k": 1}
        listed = await service.list_sessions(app_name=APP)
        assert [s.id for s in listed.sessions] == ["s"]
        pruned = await service.prune_sessions(app_name=APP, idle_longer_than=1e12)
        assert pruned.sessions == []
        again = await service.create_session(app_name=APP, user_id="u", session_id="t")
        assert again.id == "t"  # a create with a TTL also sweeps: nothing to sweep


@pytest.mark.parametrize("ttl", [0, -1, float("nan"), float("inf"), float("-inf"), True, "1"])
async def test_a_ttl_that_is_not_a_positive_finite_time_is_refused(
    store: Store, ttl: object
) -> None:
    with pytest.raises(ConfigurationError, match="ttl_seconds"):
        session_service_from_url(store.url, **store.kwargs, ttl_seconds=ttl)
