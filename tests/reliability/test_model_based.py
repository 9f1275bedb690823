"""A model-based test across features, on every backend (contract §10: guarantees compose).

Hypothesis drives random sequences of what users, operators and crashes do to one store seen
by two replicas (:mod:`tests.reliability.model_support`): create, delete, re-create (also
under a running turn), append, Runner turns with tool steps (alone and two at once), a holder
that dies, resume, abort, rewind, fork, prune, idle TTL expiry, export and import, artifact
save (through a turn) and upload, with the session cache on or off. After every step the store
is checked against a plain reference model (:mod:`tests.reliability.model_reference`):

- no acknowledged write lost (each session's stored events extend what the model holds);
- nothing committed that cannot be read back (every get, list and export succeeds and
  decodes, on both replicas alike);
- one turn at a time per session (the tool counts the turns inside a session at once);
- every user message answered (or sealed by an abort) or listed as interrupted;
- every artifact version a live history names loads (also in forks), and every upload
  stays loadable unless a rewind to before it removed it;
- session state equals the fold of the committed events' deltas over the creation state;
  app and user state equal the model's fold; no ``temp:`` key is ever stored.

The small budget (``adk-short``) runs in ``make test``; ``make test-reliability``
(``--run-reliability``) runs the ``adk-long`` profile.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import pytest
from google.genai import types
from hypothesis import Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from adk_runtime.errors import AdkRuntimeError, AlreadyExistsError, SessionNotFoundError
from adk_runtime.events import Event, EventActions
from adk_runtime.events.rewind import live_events
from adk_runtime.sessions import Session
from adk_runtime.sessions.state import State
from tests.reliability.model_reference import Reference, Upload, fold, session_scope
from tests.reliability.model_support import (
    ABORTED,
    DEAD_LEASE,
    SLACK,
    TTL,
    Key,
    Order,
    World,
    backend_store,
    dead_holder,
    decode_export,
    export_session,
    import_lines,
    open_world,
    run_turn,
)
from tests.stores import Store, durable_params

T = TypeVar("T")
BASE_KEYS: list[Key] = [(user, sid) for user in ("u1", "u2") for sid in ("a", "b")]
picks = st.integers(0, 63)
replicas = st.integers(0, 1)
notes = st.integers(0, 9)
deltas = st.dictionaries(
    st.sampled_from(["a", "b", "c", "app:a", "user:a", "temp:t"]), st.integers(-3, 3) | st.none()
)


class Conversations(RuleBasedStateMachine):
    """Rules act on the world and tell the reference; invariants compare the two."""

    backend: ClassVar[str]
    store: ClassVar[Store | None]
    tmp_path: ClassVar[Path]
    loop: ClassVar[asyncio.AbstractEventLoop]

    def __init__(self) -> None:
        super().__init__()
        self.world: World | None = None
        self.ref = Reference(ttl=False)
        self.stale: dict[Key, Session] = {}
        self.forks = 0
        self.slow_turns = 0
        self.expiries = 0
        # Sessions found expired (idle TTL): unreadable at once, their rows may stay until a
        # sweep or a prune removes them, so a prune may report them.
        self.expired: set[Key] = set()

    # -- plumbing -----------------------------------------------------------------------

    @property
    def w(self) -> World:
        assert self.world is not None
        return self.world

    def run(self, awaitable: Awaitable[T]) -> T:
        async def bounded() -> T:
            return await asyncio.wait_for(awaitable, 60)

        return self.loop.run_until_complete(bounded())

    def pick(self, index: int) -> Key | None:
        keys = sorted(self.ref.sessions)
        return keys[index % len(keys)] if keys else None

    async def read(self, key: Key, replica: int = 0) -> Session | None:
        return await self.w.services[replica].get_session(
            app_name=self.w.app, user_id=key[0], session_id=key[1]
        )

    async def drop(self, key: Key, replica: int) -> None:
        await self.w.services[replica].delete_session(
            app_name=self.w.app, user_id=key[0], session_id=key[1]
        )

    def settle(self, key: Key, acked: list[str], started: float, *, may_add: bool) -> None:
        """Read ``key`` back after an operation and take in what it committed."""
        stored = self.run(self.read(key))
        if stored is None:
            self.gone(key)
            return
        assert key in self.ref.sessions, f"{key}: a session appeared that nobody created"
        self.ref.adopt(key, stored, acked, started, may_add=may_add)

    def gone(self, key: Key) -> None:
        """``key`` was found missing: right only if the model has it gone or maybe expired."""
        if key in self.ref.sessions:
            assert self.ref.may_have_expired(key), f"{key}: a live session vanished"
            self.ref.forget(key)
            self.expired.add(key)

    def expect(self, error: BaseException | None, key: Key, *allowed: type[BaseException]) -> None:
        """An operation on ``key`` failed: only with ``allowed`` errors, or a vanished session."""
        if error is None or isinstance(error, allowed):
            return
        if isinstance(error, SessionNotFoundError) and self.ref.may_have_expired(key):
            return
        raise error

    async def attempt(self, awaitable: Awaitable[T]) -> T | BaseException:
        try:
            return await awaitable
        except AdkRuntimeError as error:
            return error

    # -- setup --------------------------------------------------------------------------

    @initialize(cache=st.booleans(), ttl=st.booleans())
    def open(self, cache: bool, ttl: bool) -> None:
        durable = self.store is not None
        ttl = ttl and durable
        self.ref = Reference(ttl=ttl)
        self.world = self.run(
            open_world(
                self.backend,
                self.store,
                self.tmp_path,
                cache=cache and durable,
                ttl=ttl,
            )
        )
        for index, key in enumerate(BASE_KEYS):
            self.create(key, index, index % 2)

    def teardown(self) -> None:
        if self.world is not None:
            for gate in self.world.probe.gates.values():
                gate.set()
            self.run(self.world.close())

    # -- rules: sessions ----------------------------------------------------------------

    @rule(key=st.sampled_from(BASE_KEYS), note=notes, replica=replicas)
    def create(self, key: Key, note: int, replica: int) -> None:
        started = time.monotonic()
        state = {"c": note, "user:made": note}
        result = self.run(
            self.attempt(
                self.w.services[replica].create_session(
                    app_name=self.w.app, user_id=key[0], session_id=key[1], state=state
                )
            )
        )
        if isinstance(result, Session):
            assert key not in self.ref.sessions or self.ref.may_have_expired(key), (
                f"{key}: created twice"
            )
            self.ref.created(key, state, started)
            self.settle(key, [], started, may_add=False)
        else:
            assert isinstance(result, AlreadyExistsError), result
            assert key in self.ref.sessions, f"{key}: AlreadyExistsError for a missing session"

    @rule(index=picks, replica=replicas)
    def delete(self, index: int, replica: int) -> None:
        key = self.pick(index)
        if key is None:
            return
        held = self.run(self.read(key, replica))
        if held is not None:
            self.stale[key] = held
        # deleted as the front doors delete: with the session's own artifacts
        self.run(
            self.w.services[replica].delete_session(
                app_name=self.w.app,
                user_id=key[0],
                session_id=key[1],
                artifact_service=self.w.artifacts[replica],
            )
        )
        self.ref.forget(key)
        self.ref.uploads = [u for u in self.ref.uploads if u.key != key]
        assert self.run(self.read(key, 1 - replica)) is None, f"{key}: deleted, still read"

    @rule(key=st.sampled_from(BASE_KEYS), note=notes)
    def recreate(self, key: Key, note: int) -> None:
        """Delete and create again under the same id; the old object can never write."""
        old = self.run(self.read(key)) or self.stale.get(key)
        self.run(
            self.w.services[0].delete_session(
                app_name=self.w.app, user_id=key[0], session_id=key[1]
            )
        )
        self.ref.forget(key)
        started = time.monotonic()
        state = {"c": note}
        self.run(
            self.w.services[1].create_session(
                app_name=self.w.app, user_id=key[0], session_id=key[1], state=state
            )
        )
        self.ref.created(key, state, started)
        if old is not None:
            event = Event(author="ext", actions=EventActions(state_delta={"c": -1}))
            result = self.run(self.attempt(self.w.services[0].append_event(old, event)))
            assert isinstance(result, BaseException), f"{key}: an old incarnation wrote"
        self.settle(key, [], started, may_add=False)

    @rule(index=picks, delta=deltas, replica=replicas)
    def append(self, index: int, delta: dict[str, Any], replica: int) -> None:
        key = self.pick(index)
        if key is None:
            return
        started = time.monotonic()
        session = self.run(self.read(key, replica))
        if session is None:
            self.gone(key)
            return
        event = Event(author="ext", invocation_id="e-ext", actions=EventActions(state_delta=delta))
        result = self.run(self.attempt(self.w.services[replica].append_event(session, event)))
        if isinstance(result, BaseException):
            # refused only while a dead holder's lease may still run, or after expiry
            assert self.ref.held_by_the_dead(key) or self.ref.may_have_expired(key), result
            self.settle(key, [], started, may_add=False)
        else:
            self.settle(key, [event.id], started, may_add=False)

    # -- rules: turns -------------------------------------------------------------------

    @rule(index=picks, replica=replicas, steps=st.integers(1, 2), note=notes, save=st.booleans())
    def turn(self, index: int, replica: int, steps: int, note: int, save: bool) -> None:
        key = self.pick(index)
        if key is None:
            return
        started = time.monotonic()
        order = Order(steps=steps, note=note, artifact="report.txt" if save else "")
        result = self.run(self.attempt(run_turn(self.w.runners[replica], key, order)))
        if isinstance(result, BaseException):
            self.expect(result, key)
            self.settle(key, [], started, may_add=True)
            return
        assert result[-1].content is not None, "the turn did not answer"
        self.settle(key, [e.id for e in result], started, may_add=True)

    @rule(index=picks, note=notes)
    def two_turns_at_once(self, index: int, note: int) -> None:
        """Replica 0's turn is inside its tool when replica 1's turn on the session starts."""
        key = self.pick(index)
        if key is None:
            return
        started = time.monotonic()
        probe = self.w.probe
        gate = probe.gate(f"g{note}-{started}")

        async def both() -> list[Any]:
            first = asyncio.create_task(
                run_turn(self.w.runners[0], key, Order(gate=gate, note=note))
            )
            entered = asyncio.create_task(probe.entered[gate].wait())
            await asyncio.wait([first, entered], return_when=asyncio.FIRST_COMPLETED)
            second = asyncio.create_task(run_turn(self.w.runners[1], key, Order(note=note + 1)))
            await asyncio.sleep(0.05)
            probe.gates[gate].set()
            entered.cancel()
            return await asyncio.gather(first, second, return_exceptions=True)

        results = self.run(both())
        acked = []
        for result in results:
            if isinstance(result, BaseException):
                self.expect(result, key)
            else:
                acked += [e.id for e in result]
        self.settle(key, acked, started, may_add=True)

    @rule(key=st.sampled_from(BASE_KEYS), note=notes)
    def recreate_under_a_turn(self, key: Key, note: int) -> None:
        """T1 runs on S; S is deleted and created again; T2 holds the new S when T1 ends.

        T1 fails (its session vanished); its release must not free T2's claim: T2 finishes,
        and T3, sent while T2 runs, waits for it.
        """
        if key not in self.ref.sessions:
            return
        probe = self.w.probe
        first_gate = probe.gate(f"r1-{note}-{time.monotonic()}")
        second_gate = probe.gate(f"r2-{note}-{time.monotonic()}")
        started = time.monotonic()
        state = {"c": note}

        async def scenario() -> list[Any]:
            first = asyncio.create_task(
                self.attempt(run_turn(self.w.runners[0], key, Order(gate=first_gate, note=note)))
            )
            await _first(first, probe.entered[first_gate].wait())
            await self.w.services[1].delete_session(
                app_name=self.w.app, user_id=key[0], session_id=key[1]
            )
            await self.w.services[1].create_session(
                app_name=self.w.app, user_id=key[0], session_id=key[1], state=state
            )
            second = asyncio.create_task(
                self.attempt(run_turn(self.w.runners[1], key, Order(gate=second_gate, note=note)))
            )
            await _first(second, probe.entered[second_gate].wait())
            probe.gates[first_gate].set()
            await first
            third = asyncio.create_task(
                self.attempt(run_turn(self.w.runners[0], key, Order(note=note + 1)))
            )
            await asyncio.sleep(0.2)
            probe.gates[second_gate].set()
            return [await second, await third]

        self.ref.forget(key)
        results = self.run(scenario())
        self.ref.created(key, state, started)
        for result in results:
            assert not isinstance(result, BaseException), f"{key}: {result!r}"
        self.settle(key, [e.id for r in results for e in r], started, may_add=True)

    @rule(index=picks, replica=replicas, note=notes)
    def holder_dies(self, index: int, replica: int, note: int) -> None:
        """A turn claims the session, commits its user's message, and its process dies."""
        key = self.pick(index)
        if key is None or self.ref.held_by_the_dead(key):
            return
        started = time.monotonic()
        result = self.run(
            self.attempt(dead_holder(self.w.services[replica], self.w.app, key, Order(note=note)))
        )
        if isinstance(result, BaseException):
            self.expect(result, key)
            self.settle(key, [], started, may_add=False)
            return
        self.ref.dead_until[key] = time.monotonic() + DEAD_LEASE + 0.1
        self.settle(key, [] if result is None else [result.id], started, may_add=False)

    @rule(index=picks, replica=replicas)
    def resume(self, index: int, replica: int) -> None:
        """Once a dead holder's lease ran out, a replica resumes what it left."""
        key = self.pick(index)
        if key is None:
            return
        wait = self.ref.dead_until.get(key, 0.0) - time.monotonic()
        if wait > 0:
            self.run(asyncio.sleep(wait))
        started = time.monotonic()
        found = self.run(
            self.w.runners[replica].resume_interrupted(user_id=key[0], session_id=key[1])
        )
        for invocation, error in found:
            assert error is None or isinstance(error, SessionNotFoundError), (invocation, error)
        self.settle(key, [], started, may_add=True)

    @rule(index=picks, note=notes)
    def abort(self, index: int, note: int) -> None:
        """A turn is stopped while its tool runs: its call is answered, the turn sealed."""
        key = self.pick(index)
        if key is None:
            return
        started = time.monotonic()
        probe = self.w.probe
        gate = probe.gate(f"a{note}-{started}")
        signal = asyncio.Event()

        async def stopped() -> list[Event] | BaseException:
            turn = asyncio.create_task(
                self.attempt(run_turn(self.w.runners[0], key, Order(gate=gate, note=note), signal))
            )
            entered = asyncio.create_task(probe.entered[gate].wait())
            await asyncio.wait([turn, entered], return_when=asyncio.FIRST_COMPLETED)
            signal.set()
            entered.cancel()
            return await turn

        result = self.run(stopped())
        probe.gates[gate].set()
        if isinstance(result, BaseException):
            self.expect(result, key)
            self.settle(key, [], started, may_add=True)
            return
        assert result[-1].error_code == ABORTED, result[-1]
        self.settle(key, [e.id for e in result], started, may_add=True)

    # -- rules: durable execution -------------------------------------------------------

    @rule(index=picks, which=st.integers(0, 7), replica=replicas)
    def rewind(self, index: int, which: int, replica: int) -> None:
        """Rewind to before one of the session's live invocations: state as it was then."""
        key = self.pick(index)
        if key is None:
            return
        session = self.run(self.read(key))
        if session is None:
            self.gone(key)
            return
        live = live_events(session.events)
        invocations = [e.invocation_id for e in live if e.author == "user" and e.content]
        if not invocations:
            return
        target = invocations[which % len(invocations)]
        start = next(i for i, e in enumerate(live) if e.invocation_id == target)
        then = fold(self.ref.sessions[key].base, live[:start])
        now = session_scope(session.state)
        started = time.monotonic()
        result = self.run(
            self.attempt(
                self.w.runners[replica].rewind_async(
                    user_id=key[0], session_id=key[1], rewind_before_invocation_id=target
                )
            )
        )
        if isinstance(result, BaseException):
            self.expect(result, key)
            self.settle(key, [], started, may_add=False)
            return
        position = session.events.index(live[start])
        self.ref.droppable_uploads(key, position)
        self.settle(key, [], started, may_add=True)
        after = self.run(self.read(key))
        assert after is not None
        expected = {**{k: None for k in now if k not in then}, **then}
        assert session_scope(after.state) == expected, (
            f"{key}: rewound state {session_scope(after.state)} != state then {expected}"
        )

    @rule(index=picks, at=st.integers(0, 15) | st.none())
    def fork(self, index: int, at: int | None) -> None:
        key = self.pick(index)
        if key is None:
            return
        session = self.run(self.read(key))
        if session is None:
            self.gone(key)
            return
        at_event = (
            None
            if at is None or not session.events
            else session.events[at % len(session.events)].id
        )
        self.forks += 1
        new_key = (key[0], f"f{self.forks}")
        started = time.monotonic()
        forked = self.run(
            self.w.services[self.forks % 2].fork_session(
                app_name=self.w.app,
                user_id=key[0],
                session_id=key[1],
                new_session_id=new_key[1],
                at_event_id=at_event,
                artifact_service=self.w.artifacts[self.forks % 2],
            )
        )
        ref = self.ref.created(new_key, self.ref.sessions[key].base, started)
        ids = [e.id for e in forked.events]
        ref.copied = set(ids)
        stored = self.run(self.read(new_key))
        assert stored is not None, f"{new_key}: the fork is not readable"
        self.ref.adopt(new_key, stored, ids, started, may_add=False, shared=False)

    # -- rules: retention ---------------------------------------------------------------

    @rule(idle=st.sampled_from([0.05, 1e12]), replica=replicas)
    def prune(self, idle: float, replica: int) -> None:
        self.run(asyncio.sleep(0.1))
        result = self.run(
            self.w.services[replica].prune_sessions(app_name=self.w.app, idle_longer_than=idle)
        )
        if idle > 1e9:
            assert result.sessions == [], "pruned a session idle for less than forever"
        for idle_session in result.sessions:
            key = (idle_session.user_id, idle_session.session_id)
            if key not in self.ref.sessions:
                assert key in self.expired, f"{key}: pruned a session the model does not have"
                self.expired.discard(key)
                continue
            assert not self.ref.held_by_the_dead(key) or time.monotonic() > (
                self.ref.dead_until[key] - 0.2
            ), f"{key}: pruned while held"
            self.ref.forget(key)

    @rule(index=picks, note=notes)
    def held_session_is_never_idle(self, index: int, note: int) -> None:
        """While a turn runs (longer than the TTL when it is on), prune and TTL spare it."""
        key = self.pick(index)
        if key is None or self.slow_turns >= 2:
            return
        self.slow_turns += 1
        started = time.monotonic()
        probe = self.w.probe
        gate = probe.gate(f"s{note}-{started}")

        async def slow() -> tuple[Any, Any]:
            turn = asyncio.create_task(
                self.attempt(run_turn(self.w.runners[0], key, Order(gate=gate, note=note)))
            )
            entered = asyncio.create_task(probe.entered[gate].wait())
            await asyncio.wait([turn, entered], return_when=asyncio.FIRST_COMPLETED)
            entered.cancel()
            await asyncio.sleep(TTL + SLACK if self.w.ttl else 0.2)
            pruned = await self.attempt(
                self.w.services[1].prune_sessions(app_name=self.w.app, idle_longer_than=0.1)
            )
            probe.gates[gate].set()
            return pruned, await turn

        pruned, result = self.run(slow())
        if isinstance(pruned, BaseException):
            raise pruned
        for idle_session in pruned.sessions:
            gone = (idle_session.user_id, idle_session.session_id)
            assert gone != key, f"{key}: pruned while its turn ran"
            self.ref.forget(gone)
            self.expired.discard(gone)
        if self.ref.may_have_expired(key) and not isinstance(result, SessionNotFoundError):
            self.ref.sessions[key].written = started  # survived; its turn wrote
        assert not isinstance(result, BaseException), f"{key}: the held session's turn {result!r}"
        self.settle(key, [e.id for e in result], time.monotonic(), may_add=True)

    @precondition(lambda self: self.ref.ttl and self.expiries < 1)
    @rule()
    def expire(self) -> None:
        """Wait past the TTL: every session nobody touched is gone, on both replicas."""
        self.expiries += 1
        self.run(asyncio.sleep(TTL + SLACK))
        for key in list(self.ref.sessions):
            for replica in (0, 1):
                assert self.run(self.read(key, replica)) is None, f"{key}: idle, not expired"
            self.ref.forget(key)
            self.expired.add(key)

    # -- rules: transfer and artifacts --------------------------------------------------

    @rule(index=picks, replica=replicas)
    def export_and_import(self, index: int, replica: int) -> None:
        """Export one session, delete it, import the file: the same session comes back."""
        key = self.pick(index)
        if key is None:
            return
        before = self.run(self.read(key))
        if before is None:
            self.gone(key)
            return
        lines = self.run(export_session(self.w.services[0], self.w.app, key))
        decode_export(lines)
        self.run(
            self.w.services[0].delete_session(
                app_name=self.w.app, user_id=key[0], session_id=key[1]
            )
        )
        base = self.ref.sessions[key].base  # the export carries the creation state
        self.ref.forget(key)
        started = time.monotonic()
        self.run(import_lines(self.w.services[replica], lines))
        ref = self.ref.created(key, base, started)
        ids = [e.id for e in before.events]
        ref.copied = set(ids)
        after = self.run(self.read(key))
        assert after is not None, f"{key}: imported, not readable"
        assert session_scope(after.state) == session_scope(before.state), f"{key}: state changed"
        self.ref.adopt(key, after, ids, started, may_add=False, shared=False)

    @rule(index=picks, filename=st.sampled_from(["report.txt", "notes.txt"]), replica=replicas)
    def upload(self, index: int, filename: str, replica: int) -> None:
        key = self.pick(index)
        if key is None:
            return
        text = f"upload {time.monotonic()}"
        version = self.run(
            self.w.artifacts[replica].save_artifact(
                app_name=self.w.app,
                user_id=key[0],
                session_id=key[1],
                filename=filename,
                artifact=types.Part(text=text),
            )
        )
        ref = self.ref.sessions[key]
        self.ref.uploads.append(Upload(key, ref.serial, len(ref.ids), filename, version, text))

    # -- invariants -----------------------------------------------------------------------

    @invariant()
    def store_matches_reference(self) -> None:
        """Each replica reads exactly the model's sessions and events; listing agrees."""
        for key in sorted(set(self.ref.sessions) | set(BASE_KEYS)):
            reads = [self.run(self.read(key, replica)) for replica in (0, 1)]
            if key not in self.ref.sessions:
                assert reads == [None, None], f"{key}: a session nobody created"
                continue
            if None in reads:
                self.gone(key)
                continue
            for stored in reads:
                assert stored is not None
                assert [e.id for e in stored.events] == self.ref.sessions[key].ids, key
        listed = {
            (s.user_id, s.id)
            for s in self.run(self.w.services[1].list_sessions(app_name=self.w.app)).sessions
        }
        for key in set(self.ref.sessions) ^ listed:
            assert self.ref.may_have_expired(key), f"{key}: listing disagrees with the store"

    @invariant()
    def one_turn_at_a_time(self) -> None:
        if self.world is None:
            return
        assert all(n <= 1 for n in self.w.probe.most_inside.values()), self.w.probe.most_inside

    @invariant()
    def state_is_the_fold_of_the_events(self) -> None:
        for key, ref in list(self.ref.sessions.items()):
            stored = self.run(self.read(key))
            if stored is None:
                self.gone(key)
                continue
            assert session_scope(stored.state) == fold(ref.base, stored.events), key
            assert {k[4:]: v for k, v in stored.state.items() if k.startswith("app:")} == (
                self.ref.app_state
            ), key
            assert {k[5:]: v for k, v in stored.state.items() if k.startswith("user:")} == (
                self.ref.user_state.get(key[0], {})
            ), key
            assert not any(k.startswith(State.TEMP_PREFIX) for k in stored.state), key
            for event in stored.events:
                assert not any(k.startswith(State.TEMP_PREFIX) for k in event.actions.state_delta)

    @invariant()
    def every_message_answered_or_interrupted(self) -> None:
        for key, ref in list(self.ref.sessions.items()):
            # The listing first: a session still readable afterwards was alive when it was
            # listed (nothing writes in between, and an idle TTL only ever expires it), so a
            # session expiring between the two reads cannot look like a lost message.
            open_ids = {
                o.invocation_id
                for o in self.run(
                    self.w.services[0].list_interrupted_invocations(
                        app_name=self.w.app, user_id=key[0], session_id=key[1], include_running=True
                    )
                )
            }
            stored = self.run(self.read(key))
            if stored is None:
                self.gone(key)
                continue
            live = live_events(stored.events)
            for index, event in enumerate(live):
                if event.author != "user" or not event.content or event.id in ref.copied:
                    continue
                answered = any(
                    later.invocation_id == event.invocation_id
                    and later.author != "user"
                    and (later.error_code or (later.content and not later.get_function_calls()))
                    for later in live[index + 1 :]
                )
                assert answered or event.invocation_id in open_ids, (
                    f"{key}: message {event.id} neither answered nor listed as interrupted"
                )

    @invariant()
    def every_named_artifact_loads(self) -> None:
        files = self.w.artifacts[1] if self.world is not None else None
        if files is None:
            return
        for key in list(self.ref.sessions):
            stored = self.run(self.read(key))
            if stored is None:
                self.gone(key)
                continue
            for event in live_events(stored.events):
                for filename, version in event.actions.artifact_delta.items():
                    part = self.run(
                        files.load_artifact(
                            app_name=self.w.app,
                            user_id=key[0],
                            session_id=key[1],
                            filename=filename,
                            version=version,
                        )
                    )
                    assert part is not None, f"{key}: its history names {filename} v{version}"
        for upload in self.ref.uploads:
            part = self.run(
                files.load_artifact(
                    app_name=self.w.app,
                    user_id=upload.key[0],
                    session_id=upload.key[1],
                    filename=upload.filename,
                    version=upload.version,
                )
            )
            assert part is not None, f"upload lost: {upload}"
            assert part.text == upload.text, upload

    @invariant()
    def everything_exports(self) -> None:
        if self.world is None or not self.ref.sessions:
            return
        keys = sorted(self.ref.sessions)
        for key in keys:
            lines = self.run(export_session(self.w.services[1], self.w.app, key))
            if decode_export(lines) == 0:
                assert (
                    not self.ref.sessions.get(key, None)
                    or not self.ref.sessions[key].ids
                    or (self.ref.may_have_expired(key))
                ), f"{key}: exported without its events"


@pytest.mark.timeout(3600)  # the long run; each operation is bounded by Conversations.run
@pytest.mark.parametrize(
    "backend", [pytest.param("memory", marks=pytest.mark.memory), *durable_params()]
)
def test_guarantees_compose(backend: str, tmp_path: Path, long_run: bool) -> None:
    loop = asyncio.new_event_loop()
    stores = backend_store(backend, tmp_path)
    try:
        Conversations.backend = backend
        Conversations.store = loop.run_until_complete(stores.__aenter__())
        Conversations.tmp_path = tmp_path
        Conversations.loop = loop
        run_state_machine_as_test(
            Conversations,
            settings=settings(
                max_examples=settings().max_examples if long_run else 16,
                stateful_step_count=30 if long_run else 15,
                # make test reports the first failure as found; the long run also shrinks it
                phases=list(Phase) if long_run else [Phase.explicit, Phase.reuse, Phase.generate],
                report_multiple_bugs=long_run,
            ),
        )
    finally:
        loop.run_until_complete(stores.__aexit__(None, None, None))
        loop.close()


async def _first(task: asyncio.Task[Any], signal: Awaitable[Any]) -> None:
    """Wait until ``signal`` (a turn entered its tool) or ``task`` ended, whichever is first."""
    waiter = asyncio.ensure_future(signal)
    await asyncio.wait([task, waiter], return_when=asyncio.FIRST_COMPLETED)
    waiter.cancel()
