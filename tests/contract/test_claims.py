"""Session claims (contract §5): one turn at a time per session, across service objects.

Every test runs on every backend; "another replica" is a second service object on the same
store (:func:`tests.backends.twin`), so the claim is proven to live in the store.
"""

from __future__ import annotations

import asyncio
import uuid

import pytest

from adk_runtime.errors import (
    ClaimLostError,
    InputValidationError,
    SessionBusyError,
    SessionNotFoundError,
    StaleSessionError,
)
from adk_runtime.events import Event, EventActions
from adk_runtime.sessions import BaseSessionService, Session
from adk_runtime.sessions.claims import new_claim_token
from tests.backends import twin

APP = "claims"


def _event(text: str) -> Event:
    return Event(author="x", actions=EventActions(state_delta={"last": text}))


async def _new(service: BaseSessionService) -> Session:
    return await service.create_session(app_name=APP, user_id="u", session_id=uuid.uuid4().hex)


async def _get(service: BaseSessionService, sid: str) -> Session:
    session = await service.get_session(app_name=APP, user_id="u", session_id=sid)
    assert session is not None
    return session


def _claim(service: BaseSessionService, sid: str, **kwargs: float):  # type: ignore[no-untyped-def]
    return service.claim_session(app_name=APP, user_id="u", session_id=sid, **kwargs)


async def test_a_held_session_refuses_a_second_claim_elsewhere(
    session_service: BaseSessionService,
) -> None:
    sid = (await _new(session_service)).id
    async with twin(session_service) as other, _claim(session_service, sid) as held:
        assert held.token is not None
        with pytest.raises(SessionBusyError) as info:
            async with _claim(other, sid, wait_seconds=0.05):
                pass
        assert 0 < info.value.retry_after <= 20
        assert isinstance(info.value, StaleSessionError)
    # Released on exit: the other replica gets it at once, with a new token.
    async with twin(session_service) as other, _claim(other, sid) as next_claim:
        assert next_claim.token is not None
        assert next_claim.token != held.token


async def test_a_waiting_claim_gets_the_session_when_the_holder_leaves(
    session_service: BaseSessionService,
) -> None:
    sid = (await _new(session_service)).id
    order: list[str] = []
    holding = asyncio.Event()

    async def first() -> None:
        async with _claim(session_service, sid):
            order.append("first in")
            holding.set()
            await asyncio.sleep(0.3)
            order.append("first out")

    async def second() -> None:
        await holding.wait()
        async with twin(session_service) as other, _claim(other, sid, wait_seconds=30):
            order.append("second in")

    await asyncio.gather(first(), second())
    assert order == ["first in", "first out", "second in"]


async def test_a_crashed_holders_claim_runs_out(session_service: BaseSessionService) -> None:
    sid = (await _new(session_service)).id
    key = (APP, "u", sid)
    # A holder that never renews nor releases (its process died).
    dead = await session_service._try_claim(key, 1.0)
    assert dead.token is not None
    with pytest.raises(SessionBusyError):
        async with _claim(session_service, sid, wait_seconds=0):
            pass
    async with twin(session_service) as other, _claim(other, sid, wait_seconds=10) as claim:
        assert claim.token is not None
        assert claim.token != dead.token


async def test_an_append_without_a_claim_is_refused_while_a_turn_holds_the_session(
    session_service: BaseSessionService,
) -> None:
    session = await _new(session_service)
    async with twin(session_service) as other:
        outsider = await _get(other, session.id)
        async with _claim(session_service, session.id) as claim:
            session._fence = claim.token
            with pytest.raises(SessionBusyError):
                await other.append_event(outsider, _event("outsider"))
            await session_service.append_event(session, _event("holder"))
        stored = await _get(other, session.id)
        assert [e.author for e in stored.events] == ["x"]
        assert stored.state["last"] == "holder"
        # Once released, a fresh unclaimed writer is accepted again.
        await other.append_event(stored, _event("after"))
        assert (await _get(session_service, session.id)).revision == 2


async def test_a_holder_overtaken_after_its_lease_writes_nothing(
    session_service: BaseSessionService,
) -> None:
    session = await _new(session_service)
    key = (APP, "u", session.id)
    stalled = await session_service._try_claim(key, 0.2)
    session._fence = stalled.token
    await asyncio.sleep(0.3)  # the stalled holder missed its renewals
    async with twin(session_service) as other, _claim(other, session.id) as taker:
        with pytest.raises(ClaimLostError):
            await session_service.append_event(session, _event("too late"))
        assert not await session_service._extend_claim(key, stalled.token or 0, 20)
        fresh = await _get(other, session.id)
        fresh._fence = taker.token
        await other.append_event(fresh, _event("taker"))
    stored = await _get(session_service, session.id)
    assert stored.revision == 1
    assert stored.state["last"] == "taker"


async def test_an_expired_claim_not_taken_over_still_writes(
    session_service: BaseSessionService,
) -> None:
    session = await _new(session_service)
    attempt = await session_service._try_claim((APP, "u", session.id), 0.1)
    session._fence = attempt.token
    await asyncio.sleep(0.2)
    await session_service.append_event(session, _event("late but alone"))
    assert (await _get(session_service, session.id)).state["last"] == "late but alone"


async def test_the_lease_is_renewed_while_held(session_service: BaseSessionService) -> None:
    sid = (await _new(session_service)).id
    # a lease wide enough that a loaded 2-core machine renews it in time (every third of it)
    async with _claim(session_service, sid, lease_seconds=1.8) as claim:
        await asyncio.sleep(4.0)  # several leases long: only renewal keeps it
        async with twin(session_service) as other:
            with pytest.raises(SessionBusyError):
                async with _claim(other, sid, wait_seconds=0):
                    pass
        assert not claim.lost


async def test_claims_of_a_missing_session_and_bad_arguments(
    session_service: BaseSessionService,
) -> None:
    with pytest.raises(SessionNotFoundError):
        async with _claim(session_service, "nope"):
            pass
    sid = (await _new(session_service)).id
    for bad in ({"lease_seconds": 0}, {"wait_seconds": -1}, {"lease_seconds": float("nan")}):
        with pytest.raises(InputValidationError):
            _claim(session_service, sid, **bad)
    with pytest.raises(InputValidationError):
        session_service.claim_session(app_name=APP, user_id="u", session_id="x" * 500)


async def test_claims_do_not_touch_the_session(session_service: BaseSessionService) -> None:
    session = await _new(session_service)
    async with _claim(session_service, session.id):
        pass
    after = await _get(session_service, session.id)
    assert after.revision == 0
    assert after.last_update_time == session.last_update_time
    # A session object without a fence still writes once nobody holds the session.
    await session_service.append_event(session, _event("ok"))


async def test_a_claim_of_a_deleted_incarnation_touches_nothing_of_the_new_one(
    session_service: BaseSessionService,
) -> None:
    # Issue 48 defect 1: T1 holds S; S is deleted and created again; T2 claims the new S.
    sid = (await _new(session_service)).id
    key = (APP, "u", sid)
    t1 = await session_service._try_claim(key, 20)
    assert t1.token is not None
    old = await _get(session_service, sid)
    old._fence = t1.token
    await session_service.delete_session(app_name=APP, user_id="u", session_id=sid)
    await session_service.create_session(app_name=APP, user_id="u", session_id=sid)
    async with twin(session_service) as other, _claim(other, sid) as t2:
        assert t2.token is not None
        # T1 renews, appends (with its old object, or one loaded after the re-create) and
        # releases: none of it touches the new session or T2's claim.
        assert not await session_service._extend_claim(key, t1.token, 20, "t1-invocation")
        with pytest.raises(StaleSessionError):
            await session_service.append_event(old, _event("t1 old object"))
        reloaded = await _get(session_service, sid)
        reloaded._fence = t1.token
        with pytest.raises(ClaimLostError):
            await session_service.append_event(reloaded, _event("t1 reloaded"))
        await session_service._release_claim(key, t1.token, finished=True)
        # T2 still holds the session: a third claim waits (and gives up), T2 still writes.
        with pytest.raises(SessionBusyError):
            async with _claim(session_service, sid, wait_seconds=0.05):
                pass
        fresh = await _get(other, sid)
        fresh._fence = t2.token
        await other.append_event(fresh, _event("t2"))
        assert not t2.lost
    stored = await _get(session_service, sid)
    assert [e.actions.state_delta for e in stored.events] == [{"last": "t2"}]


async def test_a_retried_acquisition_gets_the_first_answer_not_its_own_lease(
    session_service: BaseSessionService,
) -> None:
    # A retry after a lost reply (redis-py re-sends a script whose connection dropped; a caller
    # polls again) carries the same token: it is granted as the first attempt was, never "held".
    sid = (await _new(session_service)).id
    key = (APP, "u", sid)
    token = new_claim_token()
    first = await session_service._try_claim(key, 20.0, "e-first", token=token)
    retry = await session_service._try_claim(key, 20.0, "e-first", token=token)
    assert (first.token, first.took_over, first.open_invocation) == (token, False, "e-first")
    assert (retry.token, retry.took_over, retry.open_invocation) == (token, False, "e-first")
    other = await session_service._try_claim(key, 20.0, token=new_claim_token())
    assert other.token is None
    assert other.held_for > 10
    # A dead holder's lease runs out: the acquisition takes over, and so does its retry.
    await session_service._release_claim(key, token)
    dead = await session_service._try_claim(key, 0.2, "e-dead", token=new_claim_token())
    assert dead.token is not None
    await asyncio.sleep(0.5)
    taker = new_claim_token()
    took = await session_service._try_claim(key, 20.0, "e-new", token=taker)
    again = await session_service._try_claim(key, 20.0, "e-new", token=taker)
    assert (took.token, took.took_over, took.open_invocation) == (taker, True, "e-dead")
    assert (again.token, again.took_over, again.open_invocation) == (taker, True, "e-dead")
    assert (await session_service._try_claim(key, 20.0, token=new_claim_token())).token is None
    # The retried claim is the one held: it renews and releases as the first attempt's would.
    assert await session_service._extend_claim(key, taker, 20.0)
    await session_service._release_claim(key, taker, finished=True)
    async with _claim(session_service, sid, wait_seconds=0) as claim:
        assert not claim.took_over


async def test_a_held_invocation_says_how_long_its_lease_still_runs(
    session_service: BaseSessionService,
) -> None:
    # A holder killed mid-turn leaves its invocation held until its lease runs out: the
    # listing says for how long (by the store's clock), read from another service object.
    sid = (await _new(session_service)).id
    key = (APP, "u", sid)
    attempt = await session_service._try_claim(key, 30.0, "e-held")
    assert attempt.token is not None
    async with twin(session_service) as other:
        [held] = await other.list_interrupted_invocations(app_name=APP, include_running=True)
        assert await other.list_interrupted_invocations(app_name=APP) == []
    assert (held.invocation_id, held.status) == ("e-held", "running")
    assert 20.0 < held.held_for <= 30.0
    assert held.to_json()["heldFor"] == round(held.held_for, 3)
    await asyncio.sleep(0.05)
    [again] = await session_service.list_interrupted_invocations(app_name=APP, include_running=True)
    assert again == held  # the same invocation: the seconds left are not compared
    assert again.held_for < held.held_for
    await session_service._release_claim(key, attempt.token)
    [failed] = await session_service.list_interrupted_invocations(app_name=APP)
    assert (failed.invocation_id, failed.status, failed.held_for) == ("e-held", "failed", 0.0)
