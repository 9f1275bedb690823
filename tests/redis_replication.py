"""A Redis primary and one replica on loopback, the replica's link through a relay that freezes.

Two ``redis-server`` processes on spare ports (nothing kept on disk beyond a temporary
folder). The replica reaches its primary through :class:`FrozenLink`, a TCP relay in the
test's event loop: frozen, it holds every byte in both directions, so the replica stays
connected (the primary still counts it) but neither receives new writes nor acknowledges
them, and it still answers reads on its own port. A missing ``redis-server`` fails the test.

``ADK_RUNTIME_TEST_REDIS_SERVER`` names another server binary (a newer Redis, or Valkey) to
run them with instead of the ``redis-server`` on the ``PATH``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import random
import shutil
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

import redis.asyncio as redis_asyncio

from tests.redis_cluster import FIRST_PORT, LAST_PORT, port_free


class FrozenLink:
    """Relays bytes between a replica and its primary until frozen (then holds them)."""

    def __init__(self, port: int) -> None:
        self._target = port
        self._flowing = asyncio.Event()
        self._flowing.set()
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.port = 0

    def freeze(self) -> None:
        """Hold every byte from now on (the replica neither receives nor acknowledges)."""
        self._flowing.clear()

    def thaw(self) -> None:
        """Deliver what was held and relay again."""
        self._flowing.set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self._target)
        except OSError:  # the primary is gone (the test is over)
            writer.close()
            self._tasks.discard(task)
            return
        pumps = [
            asyncio.ensure_future(self._pump(reader, up_writer)),
            asyncio.ensure_future(self._pump(up_reader, writer)),
        ]
        try:
            await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for pump in pumps:
                pump.cancel()
            await asyncio.gather(*pumps, return_exceptions=True)
            for end in (writer, up_writer):
                end.close()
            self._tasks.discard(task)

    async def _pump(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        while data := await source.read(65536):
            await self._flowing.wait()
            sink.write(data)
            await sink.drain()


@dataclasses.dataclass
class Replicated:
    """A running primary and replica: their ports and the replica's link."""

    primary: int
    replica: int
    link: FrozenLink

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.primary}/0"

    def client(self, port: int) -> redis_asyncio.Redis:
        return redis_asyncio.Redis(port=port, decode_responses=True)


@contextlib.asynccontextmanager
async def primary_and_replica() -> AsyncIterator[Replicated]:
    """Start a primary and a replica (linked through a :class:`FrozenLink`); stop them after."""
    binary = shutil.which(os.environ.get("ADK_RUNTIME_TEST_REDIS_SERVER", "redis-server"))
    if binary is None:
        raise AssertionError("redis-server is not installed (Debian's redis-server package).")
    root = Path(tempfile.mkdtemp(prefix="adk-redis-replica-"))
    processes: list[asyncio.subprocess.Process] = []
    link: FrozenLink | None = None
    try:
        primary = await _start(binary, root, processes)
        link = FrozenLink(primary)
        await link.start()
        replica = await _start(binary, root, processes, "--replicaof", "127.0.0.1", str(link.port))
        running = Replicated(primary, replica, link)
        await _wait_in_sync(running)
        yield running
    finally:
        for process in reversed(processes):  # the replica first
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
        if link is not None:
            await link.stop()
        await asyncio.to_thread(shutil.rmtree, root, True)


async def _start(
    binary: str, root: Path, processes: list[asyncio.subprocess.Process], *extra: str
) -> int:
    """Start a server on a spare port (another port when it was taken first); its port."""
    for _ in range(5):
        port = random.randrange(FIRST_PORT, LAST_PORT)
        if not port_free(port):
            continue
        folder = root / str(port)
        folder.mkdir()
        process = await asyncio.create_subprocess_exec(
            binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder),
            "--save", "", "--appendonly", "no", "--protected-mode", "no",
            "--repl-diskless-sync-delay", "0", "--logfile", str(folder / "redis.log"), *extra,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
        processes.append(process)
        if await _answers(process, port):
            return port
    raise AssertionError("no spare port for a redis-server")


async def _answers(process: asyncio.subprocess.Process, port: int) -> bool:
    async with redis_asyncio.Redis(port=port, socket_connect_timeout=1) as client:
        for _ in range(100):
            if process.returncode is not None:
                return False  # the port was taken between the check and the start
            with contextlib.suppress(OSError, redis_asyncio.RedisError):
                if await client.ping():
                    return True
            await asyncio.sleep(0.05)
    return False


async def _wait_in_sync(running: Replicated) -> None:
    async with running.client(running.primary) as primary:
        for _ in range(300):
            info = await primary.info("replication")
            replica = info.get("slave0")
            if (
                isinstance(replica, dict)
                and replica.get("state") == "online"
                and int(replica["offset"]) == int(info["master_repl_offset"])
            ):
                return
            await asyncio.sleep(0.05)
    raise AssertionError("the replica did not sync within 15 s")
