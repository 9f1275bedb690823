"""The Spanner schema: its steps, ``adk-runtime db`` on it, upgraders at once."""

from __future__ import annotations

import asyncio

from adk_runtime.sessions.spanner import SpannerSessionService
from adk_runtime.sessions.spanner._schema import HEAD, open_admin
from tests.serving import run_cli
from tests.spanner_support import Emulator, spanner_url


async def _ddl(emulator: Emulator, database: str) -> list[str]:
    admin = open_admin(emulator.host)
    try:
        return list((await admin.get_database_ddl(database=database)).statements)
    finally:
        await admin.transport.close()


async def test_upgrade_creates_the_schema_once_and_then_does_nothing(
    spanner_emulator: Emulator, database: str
) -> None:
    async with SpannerSessionService(database, emulator_host=spanner_emulator.host) as service:
        assert (await service.schema_status()).current is None
        status = await service.prepare()
        assert status.current == HEAD
        assert status.up_to_date
        ddl = await _ddl(spanner_emulator, database)
        again = await service.prepare()
        assert again.up_to_date
        assert await _ddl(spanner_emulator, database) == ddl


async def test_events_are_interleaved_in_their_session(
    spanner_emulator: Emulator, database: str
) -> None:
    async with SpannerSessionService(database, emulator_host=spanner_emulator.host) as service:
        await service.prepare()
    statements = await _ddl(spanner_emulator, database)
    ddl = {s.split()[2]: s for s in statements if s.startswith("CREATE TABLE")}
    assert "INTERLEAVE IN PARENT adk_sessions ON DELETE CASCADE" in ddl["adk_events"]
    assert "PRIMARY KEY(app_name, user_id, session_id)" in ddl["adk_sessions"]
    assert "sequence" not in ddl["adk_sessions"].split("PRIMARY KEY")[1]


async def test_upgraders_at_once_all_succeed(spanner_emulator: Emulator, database: str) -> None:
    services = [
        SpannerSessionService(database, emulator_host=spanner_emulator.host) for _ in range(3)
    ]
    try:
        statuses = await asyncio.gather(*(service.prepare() for service in services))
        assert all(status.up_to_date for status in statuses)
        session = await services[0].create_session(app_name="a", user_id="u")
        assert await services[2].get_session(app_name="a", user_id="u", session_id=session.id)
    finally:
        for service in services:
            await service.close()


async def test_db_check_upgrade_and_current_on_spanner(
    spanner_emulator: Emulator, database: str
) -> None:
    url = spanner_url(spanner_emulator, database)

    def run(command: str) -> tuple[int, str]:
        result = run_cli("db", command, "--url", url)
        return result.returncode, result.stdout + result.stderr

    code, output = await asyncio.to_thread(run, "check")
    assert code == 1
    assert "is behind: at no schema" in output
    code, output = await asyncio.to_thread(run, "upgrade")
    assert code == 0
    assert f"schema version {HEAD}" in output
    code, output = await asyncio.to_thread(run, "check")
    assert code == 0
    assert "is up to date" in output
    code, output = await asyncio.to_thread(run, "current")
    assert code == 0
    assert output.strip() == f"{HEAD} (newest)"
