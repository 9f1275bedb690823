"""The Cloud Spanner emulator for the tests: started once per test process, a database per test.

:func:`running_emulator` starts ``emulator_main`` (gcloud's ``cloud-spanner-emulator``
component: in memory, no credentials) on a free loopback port and stops it afterwards; the
``spanner_emulator`` fixture (``tests/conftest.py``) does so once per pytest process (so once
per xdist worker) and creates the test instance. :func:`fresh_database` creates an empty
database on it, yields its path and drops it.

:func:`current_emulator` is that emulator for code that has no fixture request (the
``fresh_store`` of :mod:`tests.stores`): every test marked ``spanner`` has it started first
(an autouse fixture in ``tests/conftest.py``).

A missing emulator fails the tests that need it, with the way to install it (never a skip):
``$SPANNER_EMULATOR_BINARY``, else the Google Cloud SDK's path, else ``emulator_main`` on
``PATH``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import os
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import TypeVar

import grpc
import pytest

T = TypeVar("T")
PROJECT = "adk-test"
INSTANCE = "adk-test"
_SDK_BINARY = "/usr/lib/google-cloud-sdk/bin/cloud_spanner_emulator/emulator_main"
_INSTALL = (
    "Install it with: apt-get install google-cloud-cli-spanner-emulator (Google Cloud SDK's "
    "apt repository), or gcloud components install cloud-spanner-emulator; or point "
    "SPANNER_EMULATOR_BINARY at emulator_main."
)


@dataclasses.dataclass(frozen=True)
class Emulator:
    """A running emulator: ``host`` is ``127.0.0.1:PORT`` (``SPANNER_EMULATOR_HOST``)."""

    host: str
    process: subprocess.Popen[bytes] = dataclasses.field(repr=False, compare=False)

    def stop(self) -> None:
        """Stop the emulator now (a test of a server that goes away)."""
        self.process.terminate()
        self.process.wait(timeout=10)

    @property
    def instance(self) -> str:
        """The test instance's path."""
        return f"projects/{PROJECT}/instances/{INSTANCE}"


_CURRENT: list[Emulator] = []


def set_current_emulator(emulator: Emulator | None) -> None:
    """Record the process's emulator (the ``spanner_emulator`` fixture does), or forget it."""
    _CURRENT[:] = [emulator] if emulator is not None else []


def current_emulator() -> Emulator:
    """The emulator of this test process, started by the ``spanner_emulator`` fixture."""
    if not _CURRENT:
        pytest.fail(
            "No Spanner emulator runs in this test process: mark the test spanner (or ask "
            "for the spanner_emulator fixture)."
        )
    return _CURRENT[0]


def emulator_binary() -> str:
    """The emulator's path, or a test failure saying how to install it."""
    candidates = [os.environ.get("SPANNER_EMULATOR_BINARY", ""), _SDK_BINARY]
    candidates.append(shutil.which("emulator_main") or "")
    for candidate in candidates:
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    pytest.fail(f"The Cloud Spanner emulator (emulator_main) was not found. {_INSTALL}")


def free_port() -> int:
    """A TCP port free on loopback now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait_until_listening(process: subprocess.Popen[bytes], port: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"The Spanner emulator exited at start (status {process.returncode}).")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    pytest.fail("The Spanner emulator did not listen within 30 s.")


@contextlib.contextmanager
def running_emulator() -> Iterator[Emulator]:
    """Start the emulator on a free loopback port; stop it afterwards."""
    binary = emulator_binary()
    for _attempt in range(3):  # another process may take the free port first
        port = free_port()
        process = subprocess.Popen(
            [binary, "--host_port", f"127.0.0.1:{port}"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            _wait_until_listening(process, port)
        except pytest.fail.Exception:
            process.kill()
            process.wait()
            continue
        try:
            yield Emulator(f"127.0.0.1:{port}", process)
        finally:
            process.terminate()  # a no-op when a test stopped it already
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        return
    pytest.fail("The Spanner emulator could not start on a free port (3 attempts).")


async def create_instance(emulator: Emulator) -> None:
    """Create the test instance on ``emulator``."""
    from google.cloud.spanner_admin_instance_v1 import Instance
    from google.cloud.spanner_admin_instance_v1.services.instance_admin import (
        InstanceAdminAsyncClient,
    )
    from google.cloud.spanner_admin_instance_v1.services.instance_admin.transports import (
        grpc_asyncio,
    )

    channel = grpc.aio.insecure_channel(emulator.host)
    transport = grpc_asyncio.InstanceAdminGrpcAsyncIOTransport(channel=channel)
    client = InstanceAdminAsyncClient(transport=transport)
    try:
        instance = Instance(
            name=emulator.instance,
            config=f"projects/{PROJECT}/instanceConfigs/emulator-config",
            display_name="adk_runtime tests",
            node_count=1,
        )
        operation = await client.create_instance(
            parent=f"projects/{PROJECT}", instance_id=INSTANCE, instance=instance
        )
        await operation.result()
    finally:
        await transport.close()


@contextlib.asynccontextmanager
async def fresh_database(emulator: Emulator, *, drop: bool = True) -> AsyncIterator[str]:
    """Create an empty database on the test instance; yield its path; drop it (if ``drop``)."""
    from google.cloud.spanner_admin_database_v1 import CreateDatabaseRequest
    from google.cloud.spanner_admin_database_v1.services.database_admin import (
        DatabaseAdminAsyncClient,
    )
    from google.cloud.spanner_admin_database_v1.services.database_admin.transports import (
        grpc_asyncio,
    )

    name = "t" + uuid.uuid4().hex[:20]
    channel = grpc.aio.insecure_channel(emulator.host)
    transport = grpc_asyncio.DatabaseAdminGrpcAsyncIOTransport(channel=channel)
    client = DatabaseAdminAsyncClient(transport=transport)
    path = f"{emulator.instance}/databases/{name}"
    try:
        request = CreateDatabaseRequest(
            parent=emulator.instance, create_statement=f"CREATE DATABASE `{name}`"
        )
        operation = await client.create_database(request=request)
        await operation.result()
        try:
            yield path
        finally:
            if drop:
                await client.drop_database(database=path)
    finally:
        await transport.close()


async def drop_database(emulator: Emulator, path: str) -> None:
    """Drop the database ``path`` (made by :func:`fresh_database` with ``drop=False``)."""
    from google.cloud.spanner_admin_database_v1.services.database_admin import (
        DatabaseAdminAsyncClient,
    )
    from google.cloud.spanner_admin_database_v1.services.database_admin.transports import (
        grpc_asyncio,
    )

    channel = grpc.aio.insecure_channel(emulator.host)
    transport = grpc_asyncio.DatabaseAdminGrpcAsyncIOTransport(channel=channel)
    try:
        await DatabaseAdminAsyncClient(transport=transport).drop_database(database=path)
    finally:
        await transport.close()


@contextlib.contextmanager
def fresh_database_sync(emulator: Emulator) -> Iterator[str]:
    """:func:`fresh_database` for a test without an event loop (on a loop in a thread)."""

    async def create() -> str:
        async with fresh_database(emulator, drop=False) as path:
            return path

    def in_thread(make: Callable[[], Awaitable[T]]) -> T:
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            return pool.submit(asyncio.run, make()).result()  # type: ignore[arg-type]

    path = in_thread(create)
    try:
        yield path
    finally:
        in_thread(lambda: drop_database(emulator, path))


def spanner_url(emulator: Emulator, database: str) -> str:
    """The session URL of ``database`` on ``emulator``."""
    return f"spanner:///{database}?emulator_host={emulator.host}"
