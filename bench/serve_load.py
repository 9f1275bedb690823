"""A load test a user can run: N ``adk-runtime serve`` replicas on one store, many clients.

:func:`run_load` starts the replicas (real processes on loopback ports, the echo agent of
:mod:`bench.serve_agent`), creates the conversations, then drives them through ``/run_sse``
as a load balancer would (each message to the next replica in turn):

- every conversation sends its messages one after another, each with an ``Idempotency-Key``
  (its client-chosen id), and retries on 409 or a dropped connection with the same key;
- a few "hot" sessions get messages from several clients at once, to different replicas;
- optionally one replica is SIGKILLed mid-load and started again.

Then :func:`check_store` reads every conversation back from the store and lists each problem:
an acknowledged message missing or stored twice, a message without its answer (an orphan),
an answer for the wrong message, a gap. Bounded in count and time; loopback only.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from adk_runtime.sessions import session_service_from_url

ROOT = Path(__file__).resolve().parent.parent
APP = "load"
USER = "u"
LEASE_SECONDS = 3.0
"""The replicas' session lease: how long a killed replica keeps its sessions busy."""
ATTEMPTS = 60
SEND_TIMEOUT = 60.0


@dataclasses.dataclass
class LoadResult:
    """What one load run did (see the module docstring)."""

    replicas: int
    acknowledged: dict[str, list[str]]
    latencies_ms: list[float]
    seconds: float
    statuses: Counter[int] = dataclasses.field(default_factory=Counter)
    dropped_connections: int = 0
    gave_up: list[str] = dataclasses.field(default_factory=list)
    problems: list[str] = dataclasses.field(default_factory=list)
    server_error_details: list[str] = dataclasses.field(default_factory=list)
    replica_cpu_seconds: float = 0.0
    client_cpu_seconds: float = 0.0
    store_cpu_seconds: float = 0.0

    @property
    def turns(self) -> int:
        """Acknowledged turns."""
        return sum(len(keys) for keys in self.acknowledged.values())

    @property
    def server_errors(self) -> int:
        """Responses with a 5xx status."""
        return sum(count for status, count in self.statuses.items() if status >= 500)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Replicas:
    """``adk-runtime serve`` processes on one store."""

    def __init__(self, store_url: str, count: int, log_dir: Path | None = None) -> None:
        """Prepare ``count`` replicas of the echo agent on ``store_url`` (not started).

        With ``log_dir``, replica ``i`` writes its output to ``log_dir/replica-i.log``.
        """
        self.store_url = store_url
        self.log_dir = log_dir
        self.ports = [_free_port() for _ in range(count)]
        self.processes: dict[int, subprocess.Popen[bytes]] = {}

    @property
    def urls(self) -> list[str]:
        """The replicas' base URLs."""
        return [f"http://127.0.0.1:{port}" for port in self.ports]

    def start(self, index: int) -> None:
        """Start replica ``index`` (again, after a kill)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("ADK_RUNTIME_")}
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        self.processes[index] = subprocess.Popen(
            [
                sys.executable, "-m", "adk_runtime.cli", "serve",
                "--agent", "bench.serve_agent:root_agent", "--session-url", self.store_url,
                "--port", str(self.ports[index]), "--log-level", "warning",
                "--session-wait", "2", "--session-lease", str(LEASE_SECONDS),
            ],
            cwd=ROOT, env=env, stdout=self._log(index), stderr=subprocess.STDOUT,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.processes[index].poll() is not None:
                raise RuntimeError(f"replica {index} exited at start")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.urls[index]}/health", timeout=1).status_code == 200:
                    return
            time.sleep(0.1)
        raise RuntimeError(f"replica {index} did not answer within 60 s")

    def cpu_seconds(self) -> float:
        """CPU time the running replicas used so far (user + system, from /proc)."""
        total = 0.0
        for process in self.processes.values():
            with contextlib.suppress(OSError):
                fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
                total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return total

    def _log(self, index: int) -> Any:
        if self.log_dir is None:
            return subprocess.DEVNULL
        return (self.log_dir / f"replica-{index}.log").open("ab")

    def kill(self, index: int) -> None:
        """SIGKILL replica ``index`` (no shutdown: its turns in flight die with it)."""
        process = self.processes.pop(index)
        process.kill()
        process.wait()

    def stop(self) -> None:
        """Stop every replica."""
        for process in self.processes.values():
            process.terminate()
        for process in self.processes.values():
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.processes.clear()


@contextlib.contextmanager
def running_replicas(store_url: str, count: int, log_dir: Path | None = None) -> Iterator[Replicas]:
    """Start ``count`` replicas on ``store_url``; stop them afterwards."""
    replicas = Replicas(store_url, count, log_dir)
    try:
        for index in range(count):
            replicas.start(index)
        yield replicas
    finally:
        replicas.stop()


class _Driver:
    def __init__(
        self, urls: list[str], client: httpx.AsyncClient, result: LoadResult, mark: int | None
    ) -> None:
        self.urls = urls
        self.client = client
        self.result = result
        self.mark = mark
        self.reached = asyncio.Event()  # set once ``mark`` turns were answered

    async def send(self, sid: str, text: str, key: str, first_replica: int) -> None:
        """Send one message until it is answered (retrying with its key) or give up."""
        body = {"userId": USER, "sessionId": sid, "newMessage": {"parts": [{"text": text}]}}
        start = time.perf_counter()
        for attempt in range(ATTEMPTS):
            base = self.urls[(first_replica + attempt) % len(self.urls)]
            try:
                answered = await self._attempt(base, body, key, text)
            except httpx.TransportError:
                self.result.dropped_connections += 1
                await asyncio.sleep(0.2)
                continue
            if answered:
                self.result.latencies_ms.append((time.perf_counter() - start) * 1000)
                self.result.acknowledged.setdefault(sid, []).append(key)
                if self.mark is not None and self.result.turns >= self.mark:
                    self.reached.set()
                return
            await asyncio.sleep(0.2)
        self.result.gave_up.append(key)

    async def _attempt(self, base: str, body: dict[str, Any], key: str, text: str) -> bool:
        headers = {"Idempotency-Key": key}
        async with self.client.stream(
            "POST", f"{base}/run_sse", json=body, headers=headers, timeout=SEND_TIMEOUT
        ) as response:
            self.result.statuses[response.status_code] += 1
            if response.status_code != 200:
                body = await response.aread()
                if response.status_code >= 500 and len(self.result.server_error_details) < 5:
                    self.result.server_error_details.append(body.decode()[:300])
                return False
            answers = [
                json.loads(line[6:])
                async for line in response.aiter_lines()
                if line.startswith("data: ")
            ]
        for answer in answers:
            if "error" in answer:
                status = int(answer.get("status", 500))
                self.result.statuses[status] += 1
                if status >= 500 and len(self.result.server_error_details) < 5:
                    self.result.server_error_details.append(str(answer["error"])[:300])
                return False
        return any(_text(answer) == f"echo: {text}" for answer in answers)


def _text(event: dict[str, Any]) -> str | None:
    parts = (event.get("content") or {}).get("parts") or [{}]
    text = parts[0].get("text")
    return text if isinstance(text, str) else None


async def run_load(
    replicas: Replicas,
    *,
    conversations: int,
    turns: int,
    hot_sessions: int = 2,
    hot_clients: int = 4,
    kill_after_turns: int | None = None,
    tag: str = "",
) -> LoadResult:
    """Drive the conversations through the replicas (see the module docstring).

    Session ids and message keys start with ``tag`` (runs on one store use distinct tags).
    With ``kill_after_turns``, replica 0 is SIGKILLed once that many turns were answered, and
    started again half a second later.
    """
    result = LoadResult(len(replicas.urls), {}, [], 0.0)
    limits = httpx.Limits(max_connections=conversations + hot_sessions * hot_clients + 8)
    async with httpx.AsyncClient(limits=limits, timeout=SEND_TIMEOUT) as client:
        sids = [f"{tag}c{i}" for i in range(conversations)]
        sids += [f"{tag}hot{i}" for i in range(hot_sessions)]
        for sid in sids:
            created = await client.post(
                f"{replicas.urls[0]}/apps/{APP}/users/{USER}/sessions/{sid}"
            )
            created.raise_for_status()
        driver = _Driver(replicas.urls, client, result, kill_after_turns)

        async def conversation(i: int) -> None:
            sid = f"{tag}c{i}"
            for turn in range(turns):
                await driver.send(sid, f"{sid} t{turn}", f"{sid}-t{turn}", i + turn)

        async def hot_client(h: int, k: int) -> None:
            for turn in range(turns):
                key = f"{tag}hot{h}-k{k}-t{turn}"
                await driver.send(f"{tag}hot{h}", key, key, k)

        async def killer() -> None:
            if kill_after_turns is None:
                return
            await driver.reached.wait()
            await asyncio.to_thread(replicas.kill, 0)
            await asyncio.sleep(0.5)
            await asyncio.to_thread(replicas.start, 0)

        start = time.perf_counter()
        cpu_before = (replicas.cpu_seconds(), time.process_time(), store_cpu_seconds())
        killing = asyncio.ensure_future(killer())
        await asyncio.gather(
            *(conversation(i) for i in range(conversations)),
            *(hot_client(h, k) for h in range(hot_sessions) for k in range(hot_clients)),
        )
        result.seconds = time.perf_counter() - start
        result.replica_cpu_seconds = replicas.cpu_seconds() - cpu_before[0]
        result.client_cpu_seconds = time.process_time() - cpu_before[1]
        result.store_cpu_seconds = store_cpu_seconds() - cpu_before[2]
        await killing
    result.problems = await check_store(replicas.store_url, result.acknowledged)
    return result


STORE_PROCESSES = ("postgres", "redis-server")
"""Executables whose CPU is the store's (a SQLite store's work is inside the replicas)."""


def _process_cpu(stat: str) -> tuple[str, float]:
    name, _, rest = stat.partition(" (")[2].rpartition(") ")
    fields = rest.split()
    return name, (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def store_cpu_seconds() -> float:
    """CPU time used so far by every PostgreSQL and Redis server process on this machine.

    Machine-wide: other users of the same servers count too, so run the load test alone.
    """
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            name, seconds = _process_cpu(stat.read_text())
            if name in STORE_PROCESSES:
                total += seconds
    return total


async def check_store(store_url: str, acknowledged: dict[str, list[str]]) -> list[str]:
    """Every problem with the stored conversations (empty: nothing lost, doubled or orphaned)."""
    problems: list[str] = []
    async with session_service_from_url(store_url) as service:
        for sid, keys in sorted(acknowledged.items()):
            session = await service.get_session(app_name=APP, user_id=USER, session_id=sid)
            if session is None:
                problems.append(f"{sid}: missing")
                continue
            events = session.events
            if session.revision != len(events):
                problems.append(f"{sid}: revision {session.revision} for {len(events)} events")
            problems.extend(_pair_problems(sid, events))
            stored = Counter(event.id for event in events if event.author == "user")
            for key in keys:
                if stored[key] != 1:
                    problems.append(f"{sid}: acknowledged message {key} stored {stored[key]}x")
            if session.state.get("turns") != len(stored):
                problems.append(f"{sid}: state turns {session.state.get('turns')} != {len(stored)}")
    return problems


def _pair_problems(sid: str, events: list[Any]) -> list[str]:
    problems: list[str] = []
    if len(events) % 2:
        problems.append(f"{sid}: {len(events)} events, not message/answer pairs")
    for message, answer in zip(events[::2], events[1::2], strict=False):
        if message.author != "user" or answer.author == "user":
            problems.append(f"{sid}: message {message.id} has no answer (an orphan)")
            break
        expected = f"echo: {message.content.parts[0].text}"
        if (
            answer.content.parts[0].text != expected
            or answer.invocation_id != message.invocation_id
        ):
            problems.append(f"{sid}: message {message.id} answered by another turn's answer")
    return problems
