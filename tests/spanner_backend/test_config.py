"""The Spanner URL and its options; a missing extra; an unreachable server."""

from __future__ import annotations

import sys

import pytest

from adk_runtime.errors import BackendUnavailableError, ConfigurationError
from adk_runtime.events import Event
from adk_runtime.sessions import session_service_from_url
from adk_runtime.sessions.spanner import SpannerSessionService
from tests.spanner_support import (
    create_instance,
    free_port,
    fresh_database,
    running_emulator,
)

DATABASE = "projects/p1/instances/i1/databases/d1"


def test_the_url_names_the_database_and_sets_options() -> None:
    service = session_service_from_url(
        f"spanner:///{DATABASE}?emulator_host=127.0.0.1:1&max_sessions=7&timeout=2.5"
    )
    assert isinstance(service, SpannerSessionService)
    assert service.database == DATABASE
    assert service.url == f"spanner:///{DATABASE}?emulator_host=127.0.0.1:1"
    assert service._link._max_sessions == 7
    assert service._link._timeout == 2.5


def test_keyword_arguments_win_over_the_query() -> None:
    service = session_service_from_url(f"spanner:///{DATABASE}?max_sessions=7", max_sessions=3)
    assert isinstance(service, SpannerSessionService)
    assert service._link._max_sessions == 3


def test_the_emulator_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPANNER_EMULATOR_HOST", "127.0.0.1:9")
    service = session_service_from_url(f"spanner:///{DATABASE}")
    assert isinstance(service, SpannerSessionService)
    assert service.url.endswith("?emulator_host=127.0.0.1:9")


@pytest.mark.parametrize(
    ("url", "message"),
    [
        (f"spanner:///{DATABASE}?max_session=3", "Did you mean 'max_sessions'?"),
        (f"spanner:///{DATABASE}?timeout=soon", "timeout='soon' is not a number"),
        ("spanner:///projects/p1/instances/i1", "is not a Spanner database path"),
        (f"spanner://host:9010/{DATABASE}", "a Spanner URL has no host"),
        (f"spanner:///{DATABASE}?max_sessions=0", "max_sessions must be a positive integer"),
    ],
)
def test_a_malformed_url_is_one_clear_error(url: str, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message.replace("?", r"\?")):
        session_service_from_url(url)


def test_a_missing_extra_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [n for n in sys.modules if n.startswith("adk_runtime.sessions.spanner")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "google.cloud.spanner_v1", None)
    with pytest.raises(ConfigurationError) as error:
        session_service_from_url(f"spanner:///{DATABASE}")
    assert "pip install 'adk-runtime[spanner]'" in str(error.value)


async def test_an_unreachable_server_is_backend_unavailable() -> None:
    host = f"127.0.0.1:{free_port()}"  # nothing listens there
    async with SpannerSessionService(DATABASE, emulator_host=host, timeout=2) as service:
        with pytest.raises(BackendUnavailableError):
            await service.get_session(app_name="a", user_id="u", session_id="s")


@pytest.mark.spanner  # an emulator of its own, stopped mid-test
async def test_a_server_gone_mid_use_is_backend_unavailable_and_nothing_half_written() -> None:
    with running_emulator() as emulator:
        await create_instance(emulator)
        async with fresh_database(emulator, drop=False) as database:  # it goes with the server
            service = SpannerSessionService(database, emulator_host=emulator.host, timeout=2)
            await service.prepare()
            session = await service.create_session(app_name="a", user_id="u", session_id="s")
            emulator.stop()
            with pytest.raises(BackendUnavailableError):
                await service.append_event(session, Event(author="user"))
            assert session.revision == 0
            assert not session.events
            await service.close()
