"""Throwaway database servers the fault tests may kill and restart.

The machine's own PostgreSQL and Redis are never touched: :func:`throwaway_postgres` creates
a new cluster with ``initdb`` on a spare port (as the ``postgres`` OS user when running as
root) and :func:`throwaway_redis` starts ``redis-server`` with append-only persistence on a
spare port. Both stop their server and delete its files on exit, whatever happened.
"""

from __future__ import annotations

import asyncio
import contextlib
import glob
import os
import shutil
import signal
import socket
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path


def free_port() -> int:
    """A TCP port nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def _run(*argv: str, user: str | None = None) -> str:
    if user is not None and os.geteuid() == 0:
        argv = ("runuser", "-u", user, "--", *argv)
    proc = await asyncio.create_subprocess_exec(
        *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    out, _ = await proc.communicate()
    text = out.decode(errors="replace")
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[0]} failed ({proc.returncode}): {text[-1500:]}")
    return text


class PostgresCluster:
    """A private PostgreSQL cluster: ``url``, ``stop(mode)``, ``start()``."""

    def __init__(self, bindir: str, datadir: Path, port: int) -> None:
        self.bindir = bindir
        self.datadir = datadir
        self.port = port
        self.url = f"postgresql+asyncpg://postgres@127.0.0.1:{port}/postgres"
        self._user = "postgres" if os.geteuid() == 0 else None

    async def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        options = f"-p {self.port} -k {self.datadir} -c listen_addresses=127.0.0.1"
        await _run(
            f"{self.bindir}/pg_ctl",
            "-D",
            str(self.datadir / "data"),
            "-o",
            options,
            "-l",
            str(self.datadir / "server.log"),
            "-w",
            "-t",
            "60",
            "start",
            user=self._user,
        )

    async def stop(self, mode: str = "fast") -> None:
        """Stop the server (``immediate`` is a crash: no checkpoint, recovery on start)."""
        await _run(
            f"{self.bindir}/pg_ctl",
            "-D",
            str(self.datadir / "data"),
            "-m",
            mode,
            "-w",
            "stop",
            user=self._user,
        )


@contextlib.asynccontextmanager
async def throwaway_postgres() -> AsyncIterator[PostgresCluster]:
    """Create, start, yield, then stop and delete a private PostgreSQL cluster."""
    bindirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
    if not bindirs:
        raise RuntimeError("initdb not found under /usr/lib/postgresql/*/bin")
    datadir = Path(tempfile.mkdtemp(prefix="adkrt-pg-"))
    cluster = PostgresCluster(bindirs[-1], datadir, free_port())
    started = False
    try:
        if os.geteuid() == 0:
            shutil.chown(datadir, "postgres", "postgres")
        await _run(
            f"{cluster.bindir}/initdb",
            "-D",
            str(datadir / "data"),
            "-U",
            "postgres",
            "--auth=trust",
            "--no-sync",
            user=cluster._user,
        )
        await cluster.start()
        started = True
        yield cluster
    finally:
        if started:
            with contextlib.suppress(RuntimeError):
                await cluster.stop("immediate")
        shutil.rmtree(datadir, ignore_errors=True)


class RedisServer:
    """A private ``redis-server`` with append-only persistence: ``url``, ``kill()``, ``start()``."""

    def __init__(self, datadir: Path, port: int) -> None:
        self.datadir = datadir
        self.port = port
        self.url = f"redis://127.0.0.1:{port}/0"
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        """Start the server (reloading its append-only file) and wait until it answers."""
        self.proc = await asyncio.create_subprocess_exec(
            "redis-server",
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--appendonly",
            "yes",
            "--appendfsync",
            "always",
            "--save",
            "",
            "--dir",
            str(self.datadir),
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        for _ in range(500):
            try:
                _reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
            except OSError:
                await asyncio.sleep(0.02)
                continue
            writer.write(b"PING\r\n")
            answer = await _reader.readline()
            writer.close()
            await writer.wait_closed()
            if answer.startswith(b"+PONG"):
                return
            await asyncio.sleep(0.02)
        raise RuntimeError("redis-server did not start")

    async def kill(self) -> None:
        """SIGKILL the server (a crash: only what reached the append-only file survives)."""
        if self.proc is not None and self.proc.returncode is None:
            self.proc.send_signal(signal.SIGKILL)
            await self.proc.wait()


@contextlib.asynccontextmanager
async def throwaway_redis() -> AsyncIterator[RedisServer]:
    """Start, yield, then kill and delete a private Redis server."""
    datadir = Path(tempfile.mkdtemp(prefix="adkrt-redis-"))
    server = RedisServer(datadir, free_port())
    try:
        await server.start()
        yield server
    finally:
        await server.kill()
        shutil.rmtree(datadir, ignore_errors=True)
