"""DatabaseSessionService beyond the shared contract: URLs, durability, bad input, failures."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
from typing import Any

import asyncpg
import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from adk_runtime.errors import (
    AdkRuntimeError,
    BackendUnavailableError,
    ConfigurationError,
    InputValidationError,
    SerializationError,
)
from adk_runtime.events import Event, EventActions
from adk_runtime.sessions import DatabaseSessionService, session_service_from_url
from adk_runtime.sql import Database, create_engine, normalize_url


def _event(delta: dict[str, Any] | None = None, **kwargs: Any) -> Event:
    return Event(author="agent", actions=EventActions(state_delta=dict(delta or {})), **kwargs)


# --- URLs -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("sqlite:///app.db", "sqlite+aiosqlite:///app.db"),
        ("sqlite+aiosqlite:///:memory:", "sqlite+aiosqlite:///:memory:"),
        ("postgresql://u:p@h/db", "postgresql+asyncpg://u:p@h/db"),
        ("postgres://u@h:5433/db", "postgresql+asyncpg://u@h:5433/db"),
        ("postgresql+asyncpg://u@h/db", "postgresql+asyncpg://u@h/db"),
    ],
)
def test_urls_map_to_the_async_drivers(url: str, expected: str) -> None:
    assert normalize_url(url) == expected


@pytest.mark.parametrize(
    ("url", "hint"),
    [
        ("postgresql+psycopg2://u:s3cret@h/db", "postgresql+asyncpg://u:***@h/db"),
        ("sqlite+pysqlite:///app.db", "sqlite+aiosqlite:///app.db"),
        ("mysql+aiomysql://u:s3cret@h/db", "sqlite+aiosqlite:///path.db"),
        ("app.db", "postgresql+asyncpg://"),
    ],
)
def test_unsupported_urls_say_what_to_use(url: str, hint: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        DatabaseSessionService(url)
    assert hint in str(caught.value)
    assert "s3cret" not in str(caught.value)


def test_registry_builds_sql_services_and_rejects_unknown_schemes(tmp_path: Any) -> None:
    service = session_service_from_url(f"sqlite:///{tmp_path / 'x.db'}")
    assert isinstance(service, DatabaseSessionService)
    with pytest.raises(ConfigurationError, match=r"sync|async driver"):
        session_service_from_url("postgresql+psycopg2://u:pw@h/db")
    with pytest.raises(ConfigurationError, match="Supported schemes") as caught:
        session_service_from_url("oracle://u:pw@h/db")
    assert "pw" not in str(caught.value).replace("supported", "")


def test_engine_and_url_are_exclusive() -> None:
    with pytest.raises(ConfigurationError):
        DatabaseSessionService()


@pytest.mark.sqlite
async def test_sqlite_connections_are_tuned(tmp_path: Any) -> None:
    db = Database(create_engine(f"sqlite:///{tmp_path / 'tuned.db'}"), owns_engine=True)
    try:
        async with db.autocommit() as connection:
            pragmas = {
                name: await connection.scalar(text(f"PRAGMA {name}"))
                for name in ("journal_mode", "busy_timeout", "synchronous", "foreign_keys")
            }
    finally:
        await db.dispose()
    assert pragmas == {
        "journal_mode": "wal",
        "busy_timeout": 30000,
        "synchronous": 1,
        "foreign_keys": 1,
    }


@pytest.mark.sqlite
async def test_sqlite_connect_waits_for_a_writer_on_a_new_file(tmp_path: Any) -> None:
    # Another process holds a write transaction on a file still in rollback mode: SQLite
    # refuses the switch to WAL at once ("database is locked", no busy handler), so the first
    # connection would fail where it should wait for the writer.
    path = tmp_path / "new.db"
    writer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    writer.execute("CREATE TABLE t (x)")
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO t VALUES (1)")
    release = threading.Timer(0.3, lambda: writer.execute("COMMIT"))
    release.start()
    db = Database(create_engine(f"sqlite:///{path}"), owns_engine=True)
    try:
        async with db.autocommit() as connection:
            mode = await connection.scalar(text("PRAGMA journal_mode"))
            rows = await connection.scalar(text("SELECT count(*) FROM t"))
    finally:
        release.join()
        writer.close()
        await db.dispose()
    assert (mode, rows) == ("wal", 1)


@pytest.mark.sqlite
async def test_in_memory_sqlite_shares_one_connection() -> None:
    async with DatabaseSessionService("sqlite+aiosqlite:///:memory:") as service:
        sessions = [
            await service.create_session(app_name="a", user_id="u", session_id=f"s{i}")
            for i in range(5)
        ]
        await asyncio.gather(
            *(service.append_event(s, _event({"user:n": i})) for i, s in enumerate(sessions))
        )
        listed = await service.list_sessions(app_name="a", user_id="u")
    assert sorted(s.revision for s in listed.sessions) == [1] * 5


# --- durability -----------------------------------------------------------------------------


async def test_a_second_service_on_the_same_url_sees_everything(sql_url: str) -> None:
    async with DatabaseSessionService(sql_url) as first:
        session = await first.create_session(
            app_name="a", user_id="u", session_id="s", state={"k": 1, "app:x": 2}
        )
        await first.append_event(session, _event({"k": 3, "user:y": [1, 2]}, invocation_id="i1"))
    async with DatabaseSessionService(sql_url) as second:
        loaded = await second.get_session(app_name="a", user_id="u", session_id="s")
        assert loaded is not None
        assert loaded.state == {"k": 3, "app:x": 2, "user:y": [1, 2]}
        assert [e.invocation_id for e in loaded.events] == ["i1"]
        await second.append_event(loaded, _event({"k": 4}))
        assert loaded.revision == 2


async def test_a_callers_engine_is_used_and_not_disposed(sql_url: str) -> None:
    engine = create_engine(sql_url)
    try:
        async with DatabaseSessionService(db_engine=engine) as service:
            await service.create_session(app_name="a", user_id="u", session_id="s")
        async with engine.connect() as connection:
            assert await connection.scalar(text("SELECT count(*) FROM adk_sessions")) == 1
    finally:
        await engine.dispose()


# --- bad input writes nothing ---------------------------------------------------------------


async def _counts(url: str) -> tuple[int, ...]:
    db = Database(create_engine(url), owns_engine=True)
    try:
        async with db.autocommit() as connection:
            return tuple(
                [
                    int(await connection.scalar(text(f"SELECT count(*) FROM {table}")) or 0)
                    for table in ("adk_sessions", "adk_events", "adk_app_states", "adk_user_states")
                ]
            )
    finally:
        await db.dispose()


async def test_unserializable_state_names_its_key_and_writes_nothing(sql_url: str) -> None:
    async with DatabaseSessionService(sql_url) as service:
        with pytest.raises(SerializationError) as caught:
            await service.create_session(
                app_name="a",
                user_id="u",
                session_id="s",
                state={"ok": 1, "user:bad": {"x": {1, 2}}},
            )
        assert "['x']" in caught.value.path
        assert await _counts(sql_url) == (0, 0, 0, 0)
        session = await service.create_session(app_name="a", user_id="u", session_id="s")
        with pytest.raises(SerializationError) as caught:
            await service.append_event(session, _event({"app:fine": 1, "nested": [1, object()]}))
        assert caught.value.path == "state_delta['nested'][1]"
        assert await _counts(sql_url) == (1, 0, 0, 0)
        assert session.revision == 0


@pytest.mark.parametrize(
    "key",
    [("", "u", "s"), ("a", "u" * 129, "s"), ("a", "u", "s\x00"), ("a", 7, "s")],
)
async def test_bad_ids_are_rejected_before_any_sql(sql_url: str, key: tuple[Any, ...]) -> None:
    app_name, user_id, session_id = key
    async with DatabaseSessionService(sql_url) as service:
        with pytest.raises(InputValidationError):
            await service.create_session(app_name=app_name, user_id=user_id, session_id=session_id)
        with pytest.raises(InputValidationError):
            await service.get_session(app_name=app_name, user_id=user_id, session_id=session_id)
        session = await service.create_session(app_name="a", user_id="u", session_id="ok")
        with pytest.raises(InputValidationError):
            await service.append_event(session, _event(id="e" * 129))
    assert await _counts(sql_url) == (1, 0, 0, 0)


# --- a connection killed mid-transaction (PostgreSQL) ---------------------------------------


async def _kill_waiters(admin: asyncpg.Connection, database: str, tasks: list[Any]) -> int:
    """Terminate every backend of ``database`` waiting on a lock until ``tasks`` are done."""
    killed: set[int] = set()
    for _ in range(1000):
        if all(task.done() for task in tasks):
            return len(killed)
        rows = await admin.fetch(
            "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'",
            database,
        )
        for pid in {int(row["pid"]) for row in rows} - killed:
            await admin.execute("SELECT pg_terminate_backend($1)", pid)
            killed.add(pid)
        await asyncio.sleep(0.01)
    raise AssertionError("the service calls never finished")


@pytest.mark.postgres
async def test_terminated_backend_mid_transaction(postgres_url: str) -> None:
    from tests.sql_support import run_in_thread, truncate_all

    url = make_url(postgres_url)
    admin = await asyncpg.connect(url.set(drivername="postgresql").render_as_string(False))
    try:
        async with DatabaseSessionService(postgres_url) as service:
            session = await service.create_session(
                app_name="a", user_id="u", session_id="s", state={"app:x": 0, "user:y": 0}
            )
            # A second session's create inserts its row, then waits on the locked app row:
            # killed there, nothing of it may remain.
            locker = await asyncpg.connect(url.set(drivername="postgresql").render_as_string(False))
            try:
                tx = locker.transaction()
                await tx.start()
                await locker.execute("SELECT * FROM adk_app_states WHERE app_name = 'a' FOR UPDATE")
                create = asyncio.ensure_future(
                    service.create_session(
                        app_name="a", user_id="u", session_id="half", state={"app:x": 1}
                    )
                )
                append = asyncio.ensure_future(
                    service.append_event(session, _event({"k": 1, "app:x": 2, "user:y": 2}))
                )
                assert await _kill_waiters(admin, str(url.database), [create, append]) == 2
                for task in (create, append):
                    with pytest.raises(BackendUnavailableError, match=r"connection|unavailable"):
                        await task
                await tx.rollback()
            finally:
                await locker.close()
            assert await service.get_session(app_name="a", user_id="u", session_id="half") is None
            stored = await service.get_session(app_name="a", user_id="u", session_id="s")
            assert stored is not None
            assert (stored.revision, stored.events, stored.state) == (
                0,
                [],
                {"app:x": 0, "user:y": 0},
            )
            # The next calls work (fresh connections).
            await service.append_event(stored, _event({"k": 1}))
            assert stored.revision == 1
    finally:
        await admin.close()
        run_in_thread(truncate_all, postgres_url)


async def test_floats_in_exponent_form_read_back_as_floats(sql_url: str) -> None:
    # JSONB keeps numbers as NUMERIC and prints integral ones without a fraction.
    values = {"a": 1.5e16, "b": 1.5e300, "c": 2.5e-10, "d": 1.2345678901234568e17, "e": 1e22}
    async with DatabaseSessionService(sql_url) as service:
        session = await service.create_session(
            app_name="a", user_id="u", session_id="s", state={"user:f": 3.5e20}
        )
        await service.append_event(session, _event(values))
        loaded = await service.get_session(app_name="a", user_id="u", session_id="s")
    assert loaded is not None
    assert loaded.state == {**values, "user:f": 3.5e20}
    assert all(type(value) is float for value in loaded.state.values())


_RUN_TWICE = """
import asyncio, sys
from google.genai import types
from adk_runtime.runners import Runner
from adk_runtime.sessions import DatabaseSessionService
from adk_runtime.testing import ScriptedAgent, text_event

service = DatabaseSessionService(sys.argv[1])
agent = ScriptedAgent(name="bot", script=[text_event("a"), text_event("b")] * 3)
runner = Runner(app_name="a", agent=agent, session_service=service)
asyncio.run(service.create_session(app_name="a", user_id="u", session_id="s"))
message = types.Content(role="user", parts=[types.Part(text="hi")])
for _ in range(3):
    print(len(list(runner.run(user_id="u", session_id="s", new_message=message))))
stored = asyncio.run(service.get_session(app_name="a", user_id="u", session_id="s"))
print(stored.revision)
asyncio.run(service.close())  # on yet another loop: old connections are dropped quietly
"""


def test_runner_run_calls_each_on_their_own_event_loop(sql_url: str) -> None:
    # Runner.run drives each call on a new loop in a thread; connections follow the loop.
    # (A subprocess: connections left behind by finished loops only warn when collected.)
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-c", _RUN_TWICE, sql_url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["6", "6", "6", "21"]
    assert "Traceback" not in result.stderr, result.stderr[-2000:]


@pytest.mark.postgres
@pytest.mark.parametrize(
    ("database", "user", "reason"),
    [
        ("adk_no_such_db", "postgres", "does not exist"),
        ("postgres", "adk_no_such_user", "rejected the user"),
    ],
)
async def test_wrong_server_settings_are_configuration_errors(
    postgres_url: str, database: str, user: str, reason: str
) -> None:
    url = make_url(postgres_url).set(database=database, username=user, password="s3cret")
    async with DatabaseSessionService(url.render_as_string(hide_password=False)) as service:
        with pytest.raises(ConfigurationError, match=reason) as caught:
            await service.prepare()
    assert "s3cret" not in str(caught.value)


async def test_a_cancelled_append_leaves_a_usable_service(sql_url: str) -> None:
    async with DatabaseSessionService(sql_url) as service:
        session = await service.create_session(app_name="a", user_id="u", session_id="s")
        event = _event({"k": 1})
        task = asyncio.ensure_future(service.append_event(session, event))
        await asyncio.sleep(0)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        # Whether or not the cancelled commit landed, a retry of the same event is safe.
        stored = await service.get_session(app_name="a", user_id="u", session_id="s")
        assert stored is not None
        await service.append_event(stored, _event({"k": 1}, id=event.id))
        again = await service.get_session(app_name="a", user_id="u", session_id="s")
    assert again is not None
    assert (again.revision, [e.id for e in again.events]) == (1, [event.id])


_REFUSE = {  # a rule a DBA added: the database itself refuses one row
    "sqlite": (
        "CREATE TRIGGER refuse BEFORE INSERT ON adk_events WHEN NEW.invocation_id = 'refused' "
        "BEGIN SELECT RAISE(ABORT, 'refused by a rule'); END",
        "DROP TRIGGER refuse",
    ),
    "postgresql": (
        "ALTER TABLE adk_events ADD CONSTRAINT refuse CHECK (invocation_id <> 'refused')",
        "ALTER TABLE adk_events DROP CONSTRAINT refuse",
    ),
}


async def test_a_row_the_database_refuses_fails_its_append_alone_with_a_typed_error(
    sql_url: str,
) -> None:
    async with DatabaseSessionService(sql_url) as service:
        db = await service._open()
        add, drop = _REFUSE[db.dialect]
        async with db.write() as connection:
            await connection.execute(text(add))
        try:
            sessions = [
                await service.create_session(app_name="a", user_id="u", session_id=f"s{k}")
                for k in range(20)
            ]
            results = await asyncio.gather(
                *(
                    service.append_event(
                        s, _event({"k": k}, invocation_id="refused" if k == 7 else "fine")
                    )
                    for k, s in enumerate(sessions)
                ),
                return_exceptions=True,
            )
        finally:
            async with db.write() as connection:
                await connection.execute(text(drop))

        refused = results[7]
        assert isinstance(refused, AdkRuntimeError), refused
        assert "refused the append" in str(refused)
        assert all(isinstance(r, Event) for k, r in enumerate(results) if k != 7), results
        for k in range(20):
            stored = await service.get_session(app_name="a", user_id="u", session_id=f"s{k}")
            assert stored is not None
            assert stored.revision == (0 if k == 7 else 1)
            assert stored.state == ({} if k == 7 else {"k": k})


# --- the driver connection's own checkout ---------------------------------------------------


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.mark.postgres
async def test_postgres_hot_paths_type_connect_errors_like_every_other_path() -> None:
    """The append, the read and the claims take the pool's connection directly
    (``raw_connection``): a server that cannot be reached, or a database that does not exist,
    still reads as BackendUnavailableError / ConfigurationError, never a raw driver error."""
    unreachable = f"postgresql+asyncpg://postgres@127.0.0.1:{_closed_port()}/test"
    async with session_service_from_url(unreachable) as service:
        with pytest.raises(BackendUnavailableError):
            await service.get_session(app_name="a", user_id="u", session_id="s")
        claim = service.claim_session(app_name="a", user_id="u", session_id="s")
        with pytest.raises(BackendUnavailableError):
            await claim.__aenter__()
    missing = "postgresql+asyncpg://postgres@127.0.0.1/adk_runtime_no_such_database"
    db = Database(create_engine(missing), owns_engine=True)
    try:
        with pytest.raises(ConfigurationError, match="does not exist"):
            async with db.driver_connection():
                pass
    finally:
        await db.dispose()
