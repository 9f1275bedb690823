"""DatabaseSessionService(ttl_seconds=…): the option (its behaviour: tests/runner/test_ttl_*)."""

from __future__ import annotations

import pytest

from adk_runtime.errors import ConfigurationError
from adk_runtime.sessions import DatabaseSessionService, session_service_from_url
from adk_runtime.sessions.retention import MAX_TTL_SECONDS


async def test_ttl_from_the_url(sql_url: str) -> None:
    separator = "&" if "?" in sql_url else "?"
    service = session_service_from_url(f"{sql_url}{separator}ttl_seconds=30")
    assert isinstance(service, DatabaseSessionService)
    try:
        assert service._expiry.ttl == 30.0
    finally:
        await service.close()
    with pytest.raises(ConfigurationError, match="ttl_seconds"):
        session_service_from_url(f"{sql_url}{separator}ttl_seconds=soon")
    with pytest.raises(ConfigurationError, match="ttl_seconds"):
        DatabaseSessionService(sql_url, ttl_seconds=0)
    with pytest.raises(ConfigurationError, match="ttl_seconds"):
        DatabaseSessionService(sql_url, ttl_seconds=float("nan"))
    for beyond in (1e12, 10**400):  # no date is that far back: capped at a century
        service = DatabaseSessionService(sql_url, ttl_seconds=beyond)
        try:
            assert service._expiry.ttl == MAX_TTL_SECONDS
        finally:
            await service.close()
