"""A SQLite file that is damaged or read-only: a typed, one-line error that says what to do."""

from __future__ import annotations

from pathlib import Path

import pytest

from adk_runtime.errors import ConfigurationError, UnreadableDataError
from adk_runtime.events import Event
from adk_runtime.sessions import session_service_from_url
from tests.serving import run_cli

pytestmark = pytest.mark.sqlite


async def _seed(path: Path) -> None:
    async with session_service_from_url(f"sqlite+aiosqlite:///{path}") as service:
        session = await service.create_session(app_name="a", user_id="u", session_id="s")
        await service.append_event(session, Event(author="x"))


async def test_a_file_that_is_not_a_database_is_unreadable_data(tmp_path: Path) -> None:
    path = tmp_path / "damaged.db"
    path.write_bytes(b"definitely not sqlite " * 200)
    async with session_service_from_url(f"sqlite+aiosqlite:///{path}") as service:
        with pytest.raises(UnreadableDataError, match="not a SQLite database or is damaged"):
            await service.get_session(app_name="a", user_id="u", session_id="s")
    assert path.read_bytes() == b"definitely not sqlite " * 200  # nothing written to it


def test_the_cli_says_it_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "damaged.db"
    path.write_bytes(b"definitely not sqlite " * 200)
    result = run_cli("sessions", "list", "--url", f"sqlite+aiosqlite:///{path}", "--app", "a")
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert "not a SQLite database or is damaged" in result.stderr


async def test_a_read_only_database_reads_and_refuses_writes_without_retry_advice(
    tmp_path: Path,
) -> None:
    path = tmp_path / "sessions.db"
    await _seed(path)
    url = f"sqlite+aiosqlite:///file:{path}?mode=ro&uri=true"
    async with session_service_from_url(url) as service:
        session = await service.get_session(app_name="a", user_id="u", session_id="s")
        assert session is not None
        assert session.revision == 1
        with pytest.raises(ConfigurationError, match="read-only") as caught:
            await service.append_event(session, Event(author="y"))
        assert "Retry" not in str(caught.value)
        with pytest.raises(ConfigurationError, match="read-only"):
            await service.create_session(app_name="a", user_id="u", session_id="t")
    async with session_service_from_url(f"sqlite+aiosqlite:///{path}") as service:
        stored = await service.get_session(app_name="a", user_id="u", session_id="s")
        assert stored is not None
        assert stored.revision == 1
