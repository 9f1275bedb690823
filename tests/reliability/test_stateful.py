"""A stateful test: random create/append/get/list/delete on a durable backend and in memory.

Hypothesis drives the same random sequence (including appends through stale session objects,
retries of stored events and operations on deleted sessions) against each durable backend and
the in-memory reference store side by side, and compares every outcome: the same results, the
same typed errors, the same stored sessions, events and state.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, rule, run_state_machine_as_test

from adk_runtime.events import Event, EventActions
from adk_runtime.sessions import (
    BaseSessionService,
    GetSessionConfig,
    InMemorySessionService,
    Session,
)
from tests.reliability import values
from tests.stores import Store, durable_params, fresh_store

Key = tuple[str, str]
small_values = st.none() | st.integers(-5, 5) | st.text(max_size=3) | st.lists(st.booleans())
deltas = st.dictionaries(
    st.sampled_from(["a", "b", "app:a", "app:b", "user:a", "user:b", "temp:t"]), small_values
)


def _outcome(result: Any) -> Any:
    """What must match between the two stores: a result summary or the error's type."""
    if isinstance(result, BaseException):
        return type(result).__name__
    if isinstance(result, Session):
        return (result.user_id, result.id, result.revision, result.state, _ids(result))
    return result


def _ids(session: Session) -> list[str]:
    return [event.id for event in session.events]


class SideBySide(RuleBasedStateMachine):
    """Each rule runs on both stores and asserts the outcomes are the same."""

    store: Store
    loop: asyncio.AbstractEventLoop
    keys = Bundle("keys")

    def __init__(self) -> None:
        super().__init__()
        self.app = f"sm-{uuid.uuid4().hex[:8]}"
        self.services: list[BaseSessionService] = [InMemorySessionService(), self.store.open()]
        self.held: dict[Key, list[Session]] = {}
        self.sent: dict[Key, list[Event]] = {}

    def _both(self, call: Any) -> list[Any]:
        async def one(service: BaseSessionService, index: int) -> Any:
            try:
                return await call(service, index)
            except Exception as exc:  # the error type itself is what is compared
                return exc

        results = [self.loop.run_until_complete(one(s, i)) for i, s in enumerate(self.services)]
        ours, theirs = (_outcome(r) for r in results)
        assert ours == theirs, (ours, theirs)
        return results

    @rule(target=keys, user=st.sampled_from(["u1", "u2"]), sid=st.sampled_from(["a", "b", "c"]))
    def create(self, user: str, sid: str) -> Key:
        results = self._both(
            lambda s, _: s.create_session(
                app_name=self.app, user_id=user, session_id=sid, state={"c": sid}
            )
        )
        if isinstance(results[0], Session):
            self.held[(user, sid)] = results
        return (user, sid)

    @rule(key=keys, delta=deltas, reload=st.booleans())
    def append(self, key: Key, delta: dict[str, Any], reload: bool) -> None:
        if reload or key not in self.held:
            self.reload(key)
        if key not in self.held:
            return
        event = Event(author="sm", actions=EventActions(state_delta=delta))
        results = self._both(
            lambda s, i: s.append_event(self.held[key][i], event.model_copy(deep=True))
        )
        if isinstance(results[0], Event):
            self.sent.setdefault(key, []).append(event)

    @rule(key=keys)
    def retry_stored_event(self, key: Key) -> None:
        if not self.sent.get(key):
            return
        event = self.sent[key][-1]
        self.reload(key)
        if key in self.held:
            self._both(lambda s, i: s.append_event(self.held[key][i], event.model_copy(deep=True)))

    @rule(key=keys)
    def reload(self, key: Key) -> None:
        results = self._both(
            lambda s, _: s.get_session(app_name=self.app, user_id=key[0], session_id=key[1])
        )
        if isinstance(results[0], Session):
            self.held[key] = results
        else:
            self.held.pop(key, None)

    @rule(key=keys, recent=st.integers(0, 4))
    def get_recent(self, key: Key, recent: int) -> None:
        config = GetSessionConfig(num_recent_events=recent)
        self._both(
            lambda s, _: s.get_session(
                app_name=self.app, user_id=key[0], session_id=key[1], config=config
            )
        )

    @rule(user=st.sampled_from([None, "u1", "u2"]), page_size=st.sampled_from([None, 1, 2]))
    def list_all(self, user: str | None, page_size: int | None) -> None:
        async def listing(service: BaseSessionService, _: int) -> list[Any]:
            found: list[Any] = []
            token = None
            while True:
                page = await service.list_sessions(
                    app_name=self.app, user_id=user, page_size=page_size, page_token=token
                )
                found.extend(_outcome(session) for session in page.sessions)
                token = page.next_page_token
                if token is None:
                    return sorted(found, key=repr)

        self._both(listing)

    @rule(key=keys)
    def delete(self, key: Key) -> None:
        self._both(
            lambda s, _: s.delete_session(app_name=self.app, user_id=key[0], session_id=key[1])
        )

    def teardown(self) -> None:
        for service in self.services:
            self.loop.run_until_complete(service.close())


@pytest.mark.parametrize("backend", durable_params())
def test_durable_backend_matches_memory(backend: str, tmp_path: Path, long_run: bool) -> None:
    loop = asyncio.new_event_loop()
    store_cm = fresh_store(backend, tmp_path)
    try:
        SideBySide.store = loop.run_until_complete(store_cm.__aenter__())
        SideBySide.loop = loop
        examples = settings().max_examples if long_run else 10
        run_state_machine_as_test(
            SideBySide, settings=settings(max_examples=examples, stateful_step_count=30)
        )
    finally:
        loop.run_until_complete(store_cm.__aexit__(None, None, None))
        loop.close()


def test_value_strategies_are_exact() -> None:
    # The comparison the property tests rely on tells -0.0 from 0.0 and True from 1.
    assert not values.same(-0.0, 0.0)
    assert not values.same(True, 1)
    assert values.same({"a": [1.5, None]}, {"a": [1.5, None]})
