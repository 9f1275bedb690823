"""The world the model-based test drives (tests/reliability/test_model_based.py).

- :class:`World`: one store on one backend seen by two replicas (two session services, two
  artifact services, two Runners over the same data), with the session cache and idle TTL
  switched by the example;
- :class:`Probe`: the tool of every turn. It counts the turns inside a session at once (one
  turn at a time is measured, not assumed), saves an artifact and writes state in every scope
  when asked, and can wait on a gate so a rule can act while a turn is running;
- the turn's script: the user's message is a small JSON order (how many tool steps, which
  gate, which artifact) the :class:`~adk_runtime.testing.ScriptedModel` handler follows;
- :func:`dead_holder`: a turn whose process died after committing the user's message (a claim
  taken with a short lease and never released, as ``tests/runner/test_crashed_turns.py``);
- :func:`export_session` / :func:`import_lines`: one session through ``sessions/transfer.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.artifacts.base import BaseArtifactService
from adk_runtime.artifacts.database import DatabaseArtifactService
from adk_runtime.artifacts.file import FileArtifactService
from adk_runtime.artifacts.memory import InMemoryArtifactService
from adk_runtime.events import Event, event_from_json
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService, InMemorySessionService, transfer
from adk_runtime.sessions.registry import session_service_from_url
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import ToolContext
from tests.stores import Store, fresh_store

TURN_LEASE = 2.0
"""The Runners' lease (renewed every third of it): long enough not to be lost under load."""
DEAD_LEASE = 0.3
"""The lease of a holder that dies: the session is free again this long after it died."""
WAIT = 4.0
"""How long a turn waits for a held session (longer than every turn the machine runs)."""
TTL = 1.5
"""Idle expiry, when the example switches it on (durable backends)."""
SLACK = 0.5
"""Clock and scheduling slack around the TTL (a session is surely idle after TTL + SLACK)."""
ABORTED = "INVOCATION_ABORTED"

Key = tuple[str, str]
"""``(user_id, session_id)`` in the world's app."""


@dataclasses.dataclass(frozen=True)
class Order:
    """What a turn's user message asks for (sent as JSON text, read by the model's handler)."""

    steps: int = 1
    gate: str = ""
    artifact: str = ""
    pause: float = 0.0
    note: int = 0

    def message(self) -> types.Content:
        text = json.dumps(dataclasses.asdict(self), sort_keys=True)
        return types.Content(role="user", parts=[types.Part(text=text)])


def _order_of(request: LlmRequest) -> Order | None:
    for content in reversed(request.contents):
        for part in content.parts or []:
            if content.role == "user" and part.text and part.text.startswith("{"):
                return Order(**json.loads(part.text))
    return None


def _steps_done(request: LlmRequest) -> int:
    done = 0
    for content in reversed(request.contents):
        parts = content.parts or []
        if any(p.text and p.text.startswith("{") for p in parts if content.role == "user"):
            return done
        done += sum(1 for p in parts if p.function_response is not None)
    return done


class Probe:
    """The tool of every turn; see the module docstring."""

    def __init__(self) -> None:
        # Keyed by incarnation too: a turn of a deleted session may still be running (it can
        # no longer write) while a turn of the session created again under its id runs.
        self.inside: dict[tuple[str, str, str], int] = {}
        self.most_inside: dict[tuple[str, str, str], int] = {}
        self.gates: dict[str, asyncio.Event] = {}
        self.entered: dict[str, asyncio.Event] = {}

    def gate(self, name: str) -> str:
        self.gates[name] = asyncio.Event()
        self.entered[name] = asyncio.Event()
        return name

    async def work(self, ctx: ToolContext, order: Order) -> dict[str, Any]:
        key = (ctx.user_id, ctx.session.id, str(ctx.session._incarnation))
        self.inside[key] = self.inside.get(key, 0) + 1
        self.most_inside[key] = max(self.most_inside.get(key, 0), self.inside[key])
        try:
            if order.gate:
                self.entered[order.gate].set()
                await self.gates[order.gate].wait()
            if order.pause:
                await asyncio.sleep(order.pause)
            ctx.state["n"] = order.note
            ctx.state[("c", "k1", "k2")[order.note % 3]] = order.note  # "c": a creation key
            ctx.state["app:n"] = order.note
            ctx.state["user:n"] = order.note
            ctx.state["temp:scratch"] = order.note
            if order.artifact:
                part = types.Part(text=f"turn {order.note}")
                await ctx.save_artifact(order.artifact, part)
            return {"note": order.note}
        finally:
            self.inside[key] -= 1


def build_agent(probe: Probe) -> LlmAgent:
    async def work(
        steps: int, gate: str, artifact: str, pause: float, note: int, tool_context: ToolContext
    ) -> dict[str, Any]:
        """Do one step of the turn."""
        order = Order(steps=steps, gate=gate, artifact=artifact, pause=pause, note=note)
        return await probe.work(tool_context, order)

    def answer(request: LlmRequest) -> Any:
        order = _order_of(request)
        if order is None or _steps_done(request) >= order.steps:
            return "done"
        return function_call("work", dataclasses.asdict(order))

    return LlmAgent(name="worker", model=ScriptedModel(handler=answer), tools=[work])


@dataclasses.dataclass
class World:
    """Two replicas over one store (see the module docstring)."""

    backend: str
    app: str
    services: list[BaseSessionService]
    artifacts: list[BaseArtifactService]
    runners: list[Runner]
    probe: Probe
    ttl: bool

    async def close(self) -> None:
        for runner in self.runners:
            await runner.close()
        for service in self.services:
            await service.close()
        for artifacts in self.artifacts:
            await artifacts.close()


@contextlib.asynccontextmanager
async def backend_store(backend: str, tmp_path: Path) -> AsyncIterator[Store | None]:
    """The store of one test run (None for ``memory``: one service object is the store)."""
    if backend == "memory":
        yield None
        return
    async with fresh_store(backend, tmp_path) as store:
        yield store


async def open_world(
    backend: str, store: Store | None, tmp_path: Path, *, cache: bool, ttl: bool
) -> World:
    """Two replicas on ``store``; the session cache and idle TTL as asked (durable only)."""
    probe = Probe()
    agent = build_agent(probe)
    app = f"mbt-{uuid.uuid4().hex[:8]}"  # one app per example: the store outlives examples
    if store is None:
        shared = InMemorySessionService()
        services: list[BaseSessionService] = [shared, shared]
        files: BaseArtifactService = InMemoryArtifactService()
        artifacts = [files, files]
    else:
        extra: dict[str, Any] = {}
        if cache:  # the memory store has no cache (nor TTL): it is the cache
            extra["cache_bytes"] = 1 << 20
        if ttl:
            extra["ttl_seconds"] = TTL
        services = [session_service_from_url(store.url, **store.kwargs, **extra) for _ in range(2)]
        artifacts = [_artifact_service(store, tmp_path) for _ in range(2)]
    runners = [
        Runner(
            app_name=app,
            agent=agent,
            session_service=service,
            artifact_service=files,
            session_wait_seconds=WAIT,
            session_lease_seconds=TURN_LEASE,
        )
        for service, files in zip(services, artifacts, strict=True)
    ]
    return World(backend, app, services, artifacts, runners, probe, ttl)


def _artifact_service(store: Store, tmp_path: Path) -> BaseArtifactService:
    if store.backend in ("redis", "spanner"):  # no artifact store there: files, one
        # directory per store, shared by both replicas
        name = hashlib.sha256(store.to_json().encode()).hexdigest()[:12]
        return FileArtifactService(tmp_path / f"artifacts-{name}")
    return DatabaseArtifactService(store.url, auto_migrate=True)


async def run_turn(
    runner: Runner, key: Key, order: Order, signal: asyncio.Event | None = None
) -> list[Event]:
    """One turn; returns the events it yielded (each committed, except partial ones)."""
    return [
        event
        async for event in runner.run_async(
            user_id=key[0], session_id=key[1], new_message=order.message(), abort_signal=signal
        )
        if not event.partial
    ]


async def dead_holder(
    service: BaseSessionService, app: str, key: Key, order: Order
) -> Event | None:
    """A turn that died after committing its user's message; returns that committed event.

    A turn that takes the claim over from an earlier dead holder first resumes the invocation
    that one left open (as the Runner does); this one dies while doing so, before it writes
    anything: None. Raises what the claim or the append raised (a held or missing session).
    """
    invocation = f"e-dead-{uuid.uuid4().hex[:8]}"
    attempt = await service._try_claim((app, *key), DEAD_LEASE, invocation)
    if attempt.token is None:
        raise TimeoutError("the session is held")
    if attempt.took_over and attempt.open_invocation not in (None, invocation):
        return None
    session = await service.get_session(app_name=app, user_id=key[0], session_id=key[1])
    if session is None:
        raise LookupError("the session vanished after the claim")
    session._fence = attempt.token
    message = Event(invocation_id=invocation, author="user", content=order.message())
    return await service.append_event(session, message)


async def export_session(service: BaseSessionService, app: str, key: Key) -> list[str]:
    """One session (and the app and user state it sees) as the lines of an export file."""
    counts = transfer.ImportCounts()
    lines = [transfer.header_line([app])]
    lines += [line async for line in transfer.export_lines(service, app, [key], counts)]
    lines.append(transfer.footer_line(counts))
    return lines


def decode_export(lines: list[str]) -> int:
    """Check that every line of an export reads back; return the number of events."""
    transfer.check_file(enumerate(lines, start=1))
    events = 0
    for line in lines:
        obj = json.loads(line)
        if obj.get("kind") == "session":
            for payload in obj["events"]:
                event_from_json(payload)
                events += 1
    return events


async def import_lines(service: BaseSessionService, lines: list[str]) -> None:
    """Import an export file's lines, as ``adk-runtime sessions import`` does."""
    counts = transfer.ImportCounts()
    await transfer.import_lines(service, lambda: enumerate(lines, start=1), counts)
