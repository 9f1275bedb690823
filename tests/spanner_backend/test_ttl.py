"""Spanner's idle TTL: the option, ``expire_at`` (the row deletion policy's column) per write."""

from __future__ import annotations

import pytest

from adk_runtime.errors import ConfigurationError
from adk_runtime.events import Event
from adk_runtime.sessions import session_service_from_url
from adk_runtime.sessions.retention import MAX_TTL_SECONDS
from adk_runtime.sessions.spanner import SpannerSessionService
from tests.spanner_support import Emulator, spanner_url

TTL = 600.0


async def _expiry(service: SpannerSessionService) -> tuple[int | None, int | None, int]:
    """``expire_at``, ``claim_until`` and ``update_time`` of session a/u/s (microseconds)."""
    rows = await service._link.read(
        "SELECT UNIX_MICROS(expire_at), UNIX_MICROS(claim_until), UNIX_MICROS(update_time) "
        "FROM adk_sessions WHERE app_name = 'a' AND user_id = 'u' AND session_id = 's'"
    )
    expire_at, until, mtime = rows[0]
    return expire_at, until, mtime


async def test_ttl_from_the_url_and_refused_values(
    spanner_emulator: Emulator, database: str
) -> None:
    url = spanner_url(spanner_emulator, database)
    service = session_service_from_url(f"{url}&ttl_seconds=30")
    assert isinstance(service, SpannerSessionService)
    assert service._expiry.ttl == 30.0
    await service.close()
    with pytest.raises(ConfigurationError, match="ttl_seconds"):
        session_service_from_url(f"{url}&ttl_seconds=soon")
    for bad in (0, float("nan"), -1.0):
        with pytest.raises(ConfigurationError, match="ttl_seconds"):
            SpannerSessionService(database, ttl_seconds=bad)
    capped = SpannerSessionService(database, ttl_seconds=1e12)
    assert capped._expiry.ttl == MAX_TTL_SECONDS


async def test_expire_at_follows_writes_and_leases(
    spanner_emulator: Emulator, database: str, service: SpannerSessionService
) -> None:
    async with SpannerSessionService(
        database, emulator_host=spanner_emulator.host, ttl_seconds=TTL
    ) as expiring:
        session = await expiring.create_session(app_name="a", user_id="u", session_id="s")
        expire_at, _, mtime = await _expiry(expiring)
        assert expire_at is not None
        assert abs(expire_at - (mtime + TTL * 1e6)) < 5e6  # its write's time plus the TTL
        # A lease longer than the TTL keeps the row: expire_at moves to the lease's end.
        async with expiring.claim_session(
            app_name="a", user_id="u", session_id="s", lease_seconds=3 * TTL
        ) as claim:
            held_expiry, until, _ = await _expiry(expiring)
            assert until is not None
            assert held_expiry == until
            session._fence = claim.token
            await expiring.append_event(session, Event(author="user"))
            assert (await _expiry(expiring))[0] == until  # a write under the lease: its end
        # A service without a TTL writes NULL: Spanner's policy never removes the session.
        await service.append_event(session, Event(author="user"))
        assert (await _expiry(service))[0] is None


async def test_the_row_deletion_policy_is_in_the_schema(
    spanner_emulator: Emulator, service: SpannerSessionService
) -> None:
    from adk_runtime.sessions.spanner._schema import open_admin

    admin = open_admin(spanner_emulator.host)
    try:
        ddl = (await admin.get_database_ddl(database=service.database)).statements
    finally:
        await admin.transport.close()  # type: ignore[no-untyped-call]
    sessions = next(s for s in ddl if s.startswith("CREATE TABLE adk_sessions"))
    assert "ROW DELETION POLICY (OLDER_THAN(expire_at, INTERVAL 1 DAY))" in sessions
