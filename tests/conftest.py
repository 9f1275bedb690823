from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from blockbuster import BlockBuster, blockbuster_ctx

from adk_runtime.sessions import BaseSessionService
from tests import backends
from tests.backends import BACKENDS, Backend
from tests.redis_cluster import Cluster, running_cluster
from tests.spanner_support import (
    Emulator,
    create_instance,
    running_emulator,
    set_current_emulator,
)
from tests.sql_support import postgres_url  # noqa: F401 (a fixture)


@pytest.fixture(params=[backend.param() for backend in BACKENDS])
def backend(request: pytest.FixtureRequest) -> Backend:
    result: Backend = request.param
    return result


@pytest.fixture
async def session_service(
    backend: Backend, request: pytest.FixtureRequest
) -> AsyncIterator[BaseSessionService]:
    async with backend.open(request) as service:
        yield service


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[Cluster]:
    """A real Redis Cluster (3 primaries, 3 replicas) on loopback, for the whole run."""
    with running_cluster() as cluster:
        yield cluster


@pytest.fixture(scope="session")
def spanner_emulator() -> Iterator[Emulator]:
    """The Cloud Spanner emulator with the test instance, for the whole run (per worker)."""
    with running_emulator() as emulator:
        # On a loop of its own: the fixture is first asked for inside a test's running loop.
        with concurrent.futures.ThreadPoolExecutor(1) as thread:
            thread.submit(asyncio.run, create_instance(emulator)).result()
        set_current_emulator(emulator)
        try:
            yield emulator
        finally:
            set_current_emulator(None)


@pytest.fixture(autouse=True)
def _spanner_emulator_for_marked_tests(request: pytest.FixtureRequest) -> None:
    """A test marked ``spanner`` has the emulator running (``tests.stores.fresh_store``)."""
    if request.node.get_closest_marker("spanner") is not None:
        request.getfixturevalue("spanner_emulator")


@pytest.fixture
def blockbuster() -> Iterator[BlockBuster]:
    """Fail any blocking call made on the event loop during the test."""
    with blockbuster_ctx() as bb:
        _allow_runner_construction(bb)
        yield bb


@pytest.fixture(autouse=True)
def _no_blocking_calls_with_a_session_service(
    request: pytest.FixtureRequest,
) -> Iterator[None]:
    """Every test that uses a session service runs with blocking calls on the loop failing.

    The service is opened (and, for SQL, migrated) before the check starts, and closed after
    it ends; everything the test itself does on the loop must be non-blocking.
    """
    if "session_service" not in request.fixturenames:
        yield
        return
    request.getfixturevalue("session_service")
    with blockbuster_ctx() as bb:
        # asyncpg reads ~/.pgpass and looks for TLS files while it opens a connection (a few
        # file system calls); a pool may open one at any point of a test.
        for function in bb.functions.values():
            function.can_block_in("asyncpg/connect_utils.py", {"_parse_connect_dsn_and_args"})
        _allow_runner_construction(bb)
        backends.BLOCKBUSTER = bb
        try:
            yield
        finally:
            backends.BLOCKBUSTER = None


def pytest_addoption(parser: Any) -> None:
    parser.addoption(
        "--run-reliability", action="store_true", help="run the long reliability tests"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark ``spanner`` every test that uses the emulator; skip tests marked ``reliability``
    (the long runs) unless ``--run-reliability`` is given."""
    for item in items:
        if "spanner_emulator" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.spanner)
    if config.getoption("--run-reliability"):
        return
    skip = pytest.mark.skip(reason="long reliability run: use --run-reliability")
    for item in items:
        if item.get_closest_marker("reliability") is not None:
            item.add_marker(skip)


def _allow_runner_construction(bb: BlockBuster) -> None:
    """Blocking calls that are not ours to move off the loop.

    The Runner reads the process's working directory (no disk access) when it is built.
    With aiohttp installed (the litellm extra), google-genai sends Gemini requests through
    it, and that path has google-auth look for an mTLS certificate config file on the event
    loop before each request.
    """
    bb.functions["os.getcwd"].can_block_in("adk_runtime/runtime/app.py", {"agent_origin"})
    for function in bb.functions.values():
        function.can_block_in("google/auth/transport/_mtls_helper.py", {"check_use_client_cert"})
    # grpcio's asyncio layer joins its poller thread when the process's last channel is
    # closed or collected (a Spanner service's, in the test before perhaps): grpc's own
    # shutdown, on whatever test's loop is running when the collector gets to it. It runs in
    # Cython, which puts no Python frame on the stack to name, so the thread join itself is
    # let through (nothing of ours joins a thread on the event loop).
    for function in bb.functions.values():
        function.can_block_in("threading.py", {"_wait_for_tstate_lock"})
