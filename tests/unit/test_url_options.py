"""The options of a store URL's query: an unknown name or a bad value is one typed error.

Every backend of every service kind (sessions, artifacts, memory) names the option, the valid
ones and the nearest match; the options that are valid reach the store with their types.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from adk_runtime.artifacts import artifact_service_from_url
from adk_runtime.errors import ConfigurationError
from adk_runtime.memory import memory_service_from_url
from adk_runtime.sessions import session_service_from_url
from tests.stores import POSTGRES_URL, REDIS_URL

Factory = Callable[..., Any]
SQL_FACTORIES = [session_service_from_url, artifact_service_from_url, memory_service_from_url]
PG = POSTGRES_URL


def _refused(factory: Factory, url: str) -> str:
    with pytest.raises(ConfigurationError) as info:
        factory(url)
    message = str(info.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize(
    ("url", "unknown", "nearest"),
    [
        (f"{REDIS_URL}?keyprefix=x", "keyprefix", "key_prefix"),
        (f"{REDIS_URL}?ttl_second=5", "ttl_second", "ttl_seconds"),
        (f"{REDIS_URL}?sockettimeout=5", "sockettimeout", "socket_timeout"),
        (f"{PG}?pool_sise=5", "pool_sise", "pool_size"),
        (f"{PG}?cache_byte=5", "cache_byte", "cache_bytes"),
        (f"{PG}?statement_cache=0", "statement_cache", "statement_cache_size"),
        ("sqlite+aiosqlite:///{tmp}/s.db?cache_byte=5", "cache_byte", "cache_bytes"),
        ("sqlite+aiosqlite:///{tmp}/s.db?ttl=5", "ttl", "ttl_seconds"),
    ],
)
def test_a_misspelt_session_option_names_the_nearest_valid_one(
    tmp_path: Path, url: str, unknown: str, nearest: str
) -> None:
    message = _refused(session_service_from_url, url.format(tmp=tmp_path))
    assert f"Unknown option {unknown!r}" in message
    assert f"Did you mean {nearest!r}?" in message
    assert "Valid options:" in message
    assert nearest in message.split("Valid options:")[1]


@pytest.mark.parametrize("factory", SQL_FACTORIES)
@pytest.mark.parametrize("url", [f"{PG}?pool_sise=5", "sqlite+aiosqlite:///{tmp}/s.db?pool_sise=5"])
def test_every_sql_service_refuses_an_unknown_option(
    tmp_path: Path, factory: Factory, url: str
) -> None:
    message = _refused(factory, url.format(tmp=tmp_path))
    assert "'pool_sise'" in message
    assert "Did you mean 'pool_size'?" in message


@pytest.mark.parametrize("factory", [artifact_service_from_url, memory_service_from_url])
def test_the_session_options_are_not_an_artifact_or_memory_store_s(
    tmp_path: Path, factory: Factory
) -> None:
    message = _refused(factory, f"sqlite+aiosqlite:///{tmp_path}/s.db?cache_bytes=5")
    assert "Unknown option 'cache_bytes'" in message


def test_a_postgresql_option_on_sqlite_is_refused(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/s.db?statement_cache_size=0"
    message = _refused(session_service_from_url, url)
    assert "Unknown option 'statement_cache_size' in the SQLite URL" in message


def test_a_sqlite_uri_parameter_needs_uri_true(tmp_path: Path) -> None:
    message = _refused(session_service_from_url, f"sqlite+aiosqlite:///{tmp_path}/s.db?mode=ro")
    assert "add uri=true" in message


@pytest.mark.parametrize("factory", [*SQL_FACTORIES])
def test_memory_urls_take_no_options(factory: Factory) -> None:
    message = _refused(factory, "memory://?cache_bytes=5")
    assert "Unknown option 'cache_bytes' in the memory:// URL" in message
    assert "takes no options" in message


def test_a_file_store_takes_no_options(tmp_path: Path) -> None:
    message = _refused(artifact_service_from_url, f"{tmp_path.as_uri()}?mode=ro")
    assert "Unknown option 'mode' in the file:// URL" in message


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        (f"{PG}?pool_size=abc", "pool_size='abc' is not a number"),
        (f"{PG}?pool_size=0", "pool_size='0' is out of range"),
        (f"{PG}?timeout=abc", "timeout='abc'"),
        (f"{PG}?command_timeout=-1", "command_timeout='-1'"),
        (f"{PG}?ssl=sometimes", "one of disable, allow, prefer, require"),
        (f"{PG}?direct_tls=maybe", "true or false"),
        (f"{PG}?cache_bytes=lots", "cache_bytes='lots'"),
        (f"{PG}?ttl_seconds=soon", "ttl_seconds='soon'"),
        ("sqlite+aiosqlite:///{tmp}/s.db?uri=perhaps", "true or false"),
        ("sqlite+aiosqlite:///{tmp}/s.db?cached_statements=x", "cached_statements='x'"),
        (f"{REDIS_URL}?max_connections=abc", "max_connections='abc' is not a number"),
        (f"{REDIS_URL}?ttl_seconds=soon", "ttl_seconds='soon' is not a number"),
        (f"{REDIS_URL}?socket_timeout=abc", "socket_timeout"),
        ("redis://127.0.0.1:6379/zero", "the database number"),
    ],
)
def test_a_bad_value_is_one_typed_error(tmp_path: Path, url: str, fragment: str) -> None:
    message = _refused(session_service_from_url, url.format(tmp=tmp_path))
    assert fragment in message


@pytest.mark.parametrize(
    "url",
    ["sqlite+aiosqlite://relative.db", "sqlite+aiosqlite://dir/relative.db", "sqlite://x.db"],
)
def test_a_sqlite_url_with_two_slashes_says_to_write_three(url: str) -> None:
    message = _refused(session_service_from_url, url)
    assert "names a host" in message
    assert f"{url.split('://')[0]}:///{url.split('://')[1]}" in message


@pytest.mark.postgres
async def test_postgresql_driver_options_reach_asyncpg_with_their_types(postgres_url: str) -> None:
    # timeout=5 reached asyncpg as the text '5' before, which failed at connect.
    url = f"{postgres_url}?sslmode=disable&timeout=5&command_timeout=30&pool_size=2"
    async with session_service_from_url(url) as service:
        created = await service.create_session(app_name="a", user_id="u")
        listed = await service.list_sessions(app_name="a", user_id="u")
        assert [s.id for s in listed.sessions] == [created.id]
        await service.delete_session(app_name="a", user_id="u", session_id=created.id)


@pytest.mark.sqlite
async def test_sqlite_uri_options_are_read(tmp_path: Path) -> None:
    path = tmp_path / "ro.db"
    async with session_service_from_url(f"sqlite+aiosqlite:///{path}") as service:
        await service.create_session(app_name="a", user_id="u", session_id="s")
    url = f"sqlite+aiosqlite:///file:{path}?uri=true&mode=ro&cache_bytes=1000000"
    async with session_service_from_url(url, auto_migrate=False) as service:
        assert await service.get_session(app_name="a", user_id="u", session_id="s") is not None
        with pytest.raises(ConfigurationError, match="read-only"):
            await service.create_session(app_name="a", user_id="u", session_id="t")


@pytest.mark.redis
async def test_redis_driver_options_reach_redis_py() -> None:
    prefix = f"adk-test-{uuid.uuid4().hex[:8]}:"
    url = f"{REDIS_URL}?key_prefix={prefix}&socket_timeout=5&client_name=adk-url-test"
    async with session_service_from_url(url) as service:
        created = await service.create_session(app_name="a", user_id="u")
        await service.delete_session(app_name="a", user_id="u", session_id=created.id)
