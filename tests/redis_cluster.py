"""A real Redis Cluster on loopback for the tests: 3 primaries + 3 replicas.

Six ``redis-server`` processes with ``cluster-enabled yes`` on spare ports, joined with
``redis-cli --cluster create``; nothing is kept on disk beyond the test's folder. Stopped
(and the folder removed) afterwards. A missing ``redis-server`` / ``redis-cli`` fails the
tests that need it, never skips them. ``ADK_RUNTIME_TEST_REDIS_SERVER`` names another server
binary to run the nodes with (a newer Redis, or Valkey).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import random
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

NODE_TIMEOUT_MS = 1000
"""``cluster-node-timeout``: how soon a dead primary is failed over (a few times this)."""


@dataclasses.dataclass
class Cluster:
    """A running cluster: its URL (any node) and its processes by port."""

    url: str
    processes: dict[int, subprocess.Popen[bytes]]
    commands: dict[int, list[str]] = dataclasses.field(default_factory=dict)

    def cli(self, port: int, *args: str, timeout: float = 30) -> str:
        """Run ``redis-cli -p PORT ARGS`` and return its output."""
        return subprocess.run(
            [_binary("redis-cli"), "-p", str(port), *args],
            capture_output=True,
            text=True,
            check=True,
            timeout=timeout,
        ).stdout

    def primary_of(self, key: str) -> int:
        """The port of the primary serving ``key``'s slot."""
        slot = int(self.cli(next(iter(self.processes)), "CLUSTER", "KEYSLOT", key).strip())
        for line in self.cli(next(iter(self.processes)), "CLUSTER", "NODES").splitlines():
            fields = line.split()
            if "master" not in fields[2] or "fail" in fields[2]:
                continue
            for span in fields[8:]:
                low, _, high = span.partition("-")
                if low.isdigit() and int(low) <= slot <= int(high or low):
                    return int(fields[1].split(":")[1].split("@")[0])
        raise AssertionError(f"no primary serves slot {slot}")

    def kill(self, port: int) -> None:
        """SIGKILL the node on ``port`` (a crash: no shutdown, no save)."""
        process = self.processes.pop(port)
        process.kill()
        process.wait()

    def restart(self, port: int) -> None:
        """Start the killed node on ``port`` again (it rejoins, as a replica, from nodes.conf)."""
        self.processes[port] = subprocess.Popen(
            self.commands[port], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )


FIRST_PORT, LAST_PORT = 10000, 22000
"""Where node ports are picked: with their bus ports (+10000) all below the kernel's
ephemeral range (32768 up), so no client socket or ``bind(0)`` pick of a concurrent test
takes one between the check and the node's start."""


def _cluster_ports(count: int) -> list[int]:
    """Free ports whose cluster bus port (port + 10000) is free and valid too."""
    ports: list[int] = []
    while len(ports) < count:
        port = random.randrange(FIRST_PORT, LAST_PORT)
        if port not in ports and port_free(port) and port_free(port + 10000):
            ports.append(port)
    return ports


def port_free(port: int) -> bool:
    """True when nothing listens on (or holds) ``port`` on loopback."""
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _binary(name: str) -> str:
    if name == "redis-server":  # another server binary (a newer Redis, Valkey) when asked
        name = os.environ.get("ADK_RUNTIME_TEST_REDIS_SERVER", name)
    found = shutil.which(name)
    if found is None:
        raise AssertionError(f"{name} is not installed (Debian's redis-server package has it).")
    return found


@contextlib.contextmanager
def running_cluster() -> Iterator[Cluster]:
    """Start a 6-node cluster (3 primaries, 3 replicas); stop it afterwards.

    A node that exits at once (another process of the test run took its port first) makes
    the start begin again on other ports, up to three times.
    """
    for attempt in range(3):
        root = Path(tempfile.mkdtemp(prefix="adk-redis-cluster-"))
        cluster = Cluster("", {}, {})
        try:
            try:
                _start(cluster, root)
            except _PortTaken:
                if attempt == 2:
                    raise AssertionError("the Redis Cluster's nodes found no free ports") from None
                continue
            yield cluster
            return
        finally:
            for process in cluster.processes.values():
                process.kill()
                process.wait()
            shutil.rmtree(root, ignore_errors=True)


class _PortTaken(Exception):
    """A node exited as it started: its port was taken after it was checked."""


def _start(cluster: Cluster, root: Path) -> None:
    ports = _cluster_ports(6)
    for port in ports:
        folder = root / str(port)
        folder.mkdir()
        cluster.commands[port] = [
                _binary("redis-server"), "--port", str(port), "--bind", "127.0.0.1",
                "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", str(NODE_TIMEOUT_MS), "--dir", str(folder),
                "--save", "", "--appendonly", "no", "--protected-mode", "no",
                "--logfile", str(folder / "redis.log"),
        ]  # fmt: skip
        cluster.restart(port)
    cluster.url = f"redis+cluster://127.0.0.1:{ports[0]}/0"
    for port in ports:
        _wait(lambda port=port: _pong(cluster, port), "start")
    subprocess.run(
        [_binary("redis-cli"), "--cluster", "create",
         *(f"127.0.0.1:{port}" for port in ports),
         "--cluster-replicas", "1", "--cluster-yes"],
        capture_output=True, check=True, timeout=60,
    )  # fmt: skip
    for port in ports:
        _wait(lambda port=port: "cluster_state:ok" in cluster.cli(port, "CLUSTER", "INFO"), "join")
    _wait(lambda: _replicas_in_sync(cluster), "sync replicas")


def _pong(cluster: Cluster, port: int) -> bool:
    """Whether the node on ``port`` answers; raises _PortTaken if it exited instead."""
    if cluster.processes[port].poll() is not None:
        raise _PortTaken(port)
    # briefly: what listens on a taken port may be something else that never answers
    return cluster.cli(port, "PING", timeout=2).strip() == "PONG"


def _replicas_in_sync(cluster: Cluster) -> bool:
    linked = 0
    for port in cluster.processes:
        info = cluster.cli(port, "INFO", "replication")
        if "role:slave" in info:
            if "master_link_status:up" not in info:
                return False
            linked += 1
    return linked == 3


def _wait(ready: object, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(subprocess.SubprocessError, OSError):
            if ready():  # type: ignore[operator]
                return
        time.sleep(0.1)
    raise AssertionError(f"the Redis Cluster did not {what} within {timeout:.0f} s")
