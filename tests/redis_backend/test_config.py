"""Building the Redis service: URLs, options, the registry, and who closes the client."""

from __future__ import annotations

import pytest
import redis.asyncio as redis_asyncio

from adk_runtime.errors import BackendUnavailableError, ConfigurationError
from adk_runtime.sessions import RedisSessionService, session_service_from_url
from tests.backends import REDIS_URL
from tests.redis_backend.conftest import APP, keys_under

pytestmark = pytest.mark.redis


async def test_the_registry_builds_it_from_a_url_with_options(
    prefix: str, raw: redis_asyncio.Redis
) -> None:
    url = f"{REDIS_URL}?key_prefix={prefix}&ttl_seconds=60"
    service = session_service_from_url(url)
    assert isinstance(service, RedisSessionService)
    async with service:
        await service.create_session(app_name=APP, user_id="u", session_id="s")
    keys = await keys_under(raw, prefix)
    assert f"{prefix}{{{APP}}}:session:u:s" in keys
    assert 0 < await raw.ttl(f"{prefix}{{{APP}}}:session:u:s") <= 60


def test_rediss_is_registered() -> None:
    service = session_service_from_url("rediss://127.0.0.1:6380/0")
    assert isinstance(service, RedisSessionService)


async def test_keyword_arguments_win_over_the_query(prefix: str, raw: redis_asyncio.Redis) -> None:
    url = f"{REDIS_URL}?key_prefix={prefix}ignored:"
    async with RedisSessionService.from_url(url, key_prefix=prefix) as service:
        await service.create_session(app_name=APP, user_id="u", session_id="s")
    assert await keys_under(raw, f"{prefix}ignored:") == set()
    assert f"{prefix}{{{APP}}}:session:u:s" in await keys_under(raw, prefix)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "either a url or a client"),
        ({"url": "http://127.0.0.1/"}, "not a redis://"),
        ({"url": REDIS_URL, "ttl_seconds": 0}, "ttl_seconds"),
        ({"url": REDIS_URL, "ttl_seconds": float("inf")}, "ttl_seconds"),
        ({"url": REDIS_URL, "key_prefix": "a{"}, "key_prefix"),
    ],
)
def test_bad_configuration_is_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        RedisSessionService(**kwargs)  # type: ignore[arg-type]


def test_a_bad_ttl_in_the_url_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="ttl_seconds"):
        RedisSessionService.from_url(f"{REDIS_URL}?ttl_seconds=soon")


def test_a_ttl_that_is_not_a_number_of_seconds_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="ttl_seconds"):
        RedisSessionService(REDIS_URL, ttl_seconds=float("nan"))


@pytest.mark.parametrize("ttl", [1e300, 10**400], ids=["1e300", "1e400"])
async def test_a_ttl_no_expiry_time_can_hold_is_capped_at_a_century(
    prefix: str, ttl: float
) -> None:
    service = RedisSessionService(REDIS_URL, ttl_seconds=ttl, key_prefix=prefix)
    try:
        session = await service.create_session(app_name="a", user_id="u", session_id="s")
        assert await service.get_session(app_name="a", user_id="u", session_id="s") is not None
        assert session.id == "s"
    finally:
        await service.delete_session(app_name="a", user_id="u", session_id="s")
        await service.close()


async def test_close_leaves_a_borrowed_client_open(prefix: str) -> None:
    async with redis_asyncio.Redis.from_url(REDIS_URL, decode_responses=True) as client:
        service = RedisSessionService(client=client, key_prefix=prefix)
        async with service:
            await service.create_session(app_name=APP, user_id="u", session_id="s")
        assert await client.ping()


async def test_a_client_without_decoded_responses_works(prefix: str) -> None:
    client = redis_asyncio.Redis.from_url(REDIS_URL)
    async with client, RedisSessionService(client=client, key_prefix=prefix) as service:
        session = await service.create_session(
            app_name=APP, user_id="u", session_id="s", state={"k": b"\x00"}
        )
        assert session.state == {"k": b"\x00"}
        page = await service.list_sessions(app_name=APP, page_size=1)
        assert [s.state for s in page.sessions] == [{"k": b"\x00"}]


@pytest.mark.parametrize(
    ("url", "message"),
    [
        (f"{REDIS_URL}?wait_replicas=-1", "wait_replicas"),
        (f"{REDIS_URL}?wait_replicas=two", "wait_replicas"),
        (f"{REDIS_URL}?wait_timeout_ms=0", "wait_timeout_ms"),
        ("redis+clusters://127.0.0.1:7000", "is not a redis://"),
    ],
)
def test_bad_durability_options_and_schemes_are_refused(url: str, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        session_service_from_url(url)


async def test_wait_replicas_on_a_server_without_replicas_refuses_to_acknowledge(
    prefix: str,
) -> None:
    url = f"{REDIS_URL}?key_prefix={prefix}&wait_replicas=1&wait_timeout_ms=50"
    async with session_service_from_url(url) as service:
        with pytest.raises(BackendUnavailableError, match="0 of 1 replica"):
            await service.create_session(app_name=APP, user_id="u", session_id="s")
    # The write itself reached the primary (retrying it is safe): it is there, unconfirmed.
    async with session_service_from_url(f"{REDIS_URL}?key_prefix={prefix}") as plain:
        assert await plain.get_session(app_name=APP, user_id="u", session_id="s") is not None


def test_cluster_urls_are_registered() -> None:
    for scheme in ("redis+cluster", "rediss+cluster"):
        service = session_service_from_url(f"{scheme}://127.0.0.1:7000/0")
        assert isinstance(service, RedisSessionService)
        assert service._link.cluster
