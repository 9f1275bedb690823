"""Session claims: one turn at a time per session, across processes and replicas.

A turn holds its session through a claim kept **in the store** (the session row on SQL, the
session's hash on Redis, the process on ``memory://``), so every process and replica sharing
the store agrees on who holds it:

- a **lease** that runs out by the store's clock unless the holder renews it (a holder that
  crashes or loses its connection stops renewing, and the session is free again after at
  most one lease);
- a **fencing token**, new for every acquisition and never reused (:func:`new_claim_token`:
  63 random bits, not a per-session counter, so a session deleted and created again never
  hands out a token a turn of its earlier incarnation still holds). The holder's appends
  carry its token and commit only while it is the session's latest, and its renewals and
  release touch the session only while it is, so a holder that stalled past its lease and
  was overtaken, or whose session was deleted and created again under it, can never write,
  renew or release again (:class:`~adk_runtime.errors.ClaimLostError`); an append without a
  token is refused while another holder's lease runs.

:class:`SessionClaim` is the async context manager that acquires (waiting a bounded time),
renews in the background and releases. Each step is one round trip to the store (on SQL, an
acquisition that finds the session held takes a second one to read how long it stays held).
A turn's last event can carry the release: :meth:`SessionClaim.before_releasing_commit`, then
``session._release_on_commit``, and the commit releases in its own round trip.

**Open invocations.** A claim may name the invocation its turn runs (``invocation_id``): the
acquisition records it on the session as its *open invocation* (with when it started), in the
same round trip, and a release after :meth:`SessionClaim.finish` clears it in the release's
round trip. So a turn that raised leaves its invocation marked with the claim released
("failed"), and a holder that died leaves it marked with an expired lease ("crashed"); see
:mod:`adk_runtime.sessions.invocations`. An acquisition that takes over from a dead holder
keeps that holder's marker (it has work to finish); a claim without ``invocation_id`` leaves
the marker as it is.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import random
import secrets
from types import TracebackType
from typing import TYPE_CHECKING, Protocol, TypeAlias

from adk_runtime.errors import (
    BackendUnavailableError,
    ClaimLostError,
    InputValidationError,
    SessionBusyError,
)
from adk_runtime.sessions._prepare import AppendResult, SessionTail

if TYPE_CHECKING:
    from adk_runtime.sessions._prepare import PreparedAppend
    from adk_runtime.sessions.base import GetSessionConfig
    from adk_runtime.sessions.session import Session

__all__ = [
    "DEFAULT_LEASE_SECONDS",
    "DEFAULT_WAIT_SECONDS",
    "ClaimAttempt",
    "ClaimStore",
    "ClaimedStart",
    "SessionClaim",
    "SessionKey",
    "StartedTurn",
    "TurnStart",
    "new_claim_token",
]

logger = logging.getLogger("adk_runtime.sessions")

SessionKey = tuple[str, str, str]
"""``(app_name, user_id, session_id)``."""

DEFAULT_LEASE_SECONDS = 20.0
"""How long a claim lasts without renewal: the longest a crashed holder blocks its session."""

DEFAULT_WAIT_SECONDS = 5.0
"""How long a turn waits for a busy session before giving up (the Runner's default)."""

_MAX_SECONDS = 86_400.0
_FIRST_POLL = 0.01
_LAST_POLL = 0.25


def new_claim_token() -> int:
    """A fresh fencing token for one acquisition: 63 random bits, never 0 (no claim yet).

    Every backend's acquisition stores one of these as the session's latest claim. A token is
    compared for equality only, so it needs to be unique, not ordered: a counter kept on the
    session would start again when the session is deleted and created again, and a turn of
    the deleted incarnation would then renew or release the new incarnation's claim.
    """
    return secrets.randbelow(2**63 - 1) + 1


@dataclasses.dataclass(frozen=True)
class ClaimAttempt:
    """What a backend's claim step found.

    Attributes:
        token: The new fencing token (:func:`new_claim_token`) when the session was claimed;
            None when another claim's lease is still running.
        held_for: Seconds that other lease still runs (0.0 when claimed).
        took_over: Claimed from a holder whose lease ran out without a release: that turn
            crashed or stalled, and may have left its work half done.
        open_invocation: The session's open invocation after the acquisition (see the module
            docstring): the one asked for, or the dead holder's when it took over from one.
    """

    token: int | None
    held_for: float = 0.0
    took_over: bool = False
    open_invocation: str | None = None


ClaimedStart: TypeAlias = tuple[ClaimAttempt, SessionTail, AppendResult | None]
"""What a turn's combined claim-and-read gives (``BaseSessionService._claim_and_read``): the
claim, the session as read, and the message's commit (None: no message was given)."""


@dataclasses.dataclass(frozen=True)
class TurnStart:
    """What a turn's acquisition also does, in the same round trip when the store can.

    A Runner turn claims its session, reads it and commits the user's message. A store that
    can (PostgreSQL, Redis: ``BaseSessionService._claim_and_read``) does the three in one
    atomic step when the session is free (its last claim was released); otherwise the turn
    takes them one by one.

    Attributes:
        config: The read: ``get_session``'s config (None: the whole session).
        message: The user's event, prepared before the session was read (the Runner does so
            only for a message no stored history can change), or None.
        temp: The message's ``temp:`` state, applied to the session object with it.
    """

    config: GetSessionConfig | None = None
    message: PreparedAppend | None = None
    temp: dict[str, object] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class StartedTurn:
    """What an acquisition that did a :class:`TurnStart` found.

    Attributes:
        attempt: The claim (always acquired here).
        session: The session as read, before the message: the events ``config`` selects.
        message: The message's commit (``already_stored``: stored before, nothing written),
            or None when none was asked for.
    """

    attempt: ClaimAttempt
    session: Session
    message: AppendResult | None = None


class ClaimStore(Protocol):
    """The three storage steps a claim takes (every ``BaseSessionService`` has them).

    Each is one atomic step in the store; their contracts are on ``BaseSessionService``.
    """

    async def _try_claim(
        self,
        key: SessionKey,
        lease_seconds: float,
        mark: str | None = None,
        *,
        token: int | None = None,
    ) -> ClaimAttempt:
        """Claim the session if no other claim's lease runs."""
        ...

    async def _extend_claim(
        self, key: SessionKey, token: int, lease_seconds: float, mark: str | None = None
    ) -> bool:
        """Restart the lease of claim ``token``; False if it is not the latest."""
        ...

    async def _release_claim(self, key: SessionKey, token: int, finished: bool = False) -> None:
        """End claim ``token``'s lease now if it is still the latest."""
        ...

    async def _start_turn(
        self, key: SessionKey, lease_seconds: float, mark: str | None, token: int, start: TurnStart
    ) -> StartedTurn | None:
        """Claim a free session, read it and commit ``start.message``, in one step.

        None: not done (the session is not free, or the store cannot): nothing was written.
        """
        ...


def _duration(value: float, name: str, *, minimum: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputValidationError(f"{name} must be a number of seconds.")
    if not minimum <= value <= _MAX_SECONDS:  # compared exactly: NaN, inf, 10**400 fail
        raise InputValidationError(f"{name} must be from {minimum} to {_MAX_SECONDS:.0f} seconds.")
    return float(value)


class SessionClaim:
    """One turn's hold on a session (see the module docstring); use it with ``async with``.

    Attributes:
        token: The fencing token while held (None before entering).
        lost: True once a renewal found the claim taken over by another turn.
        took_over: True when it was acquired from a holder that never released it (a turn
            that crashed or stalled past its lease; see :class:`ClaimAttempt`).
        open_invocation: The session's open invocation once held (see the module docstring).
    """

    def __init__(
        self,
        service: ClaimStore,
        key: SessionKey,
        wait_seconds: float,
        lease_seconds: float,
        invocation_id: str | None = None,
        start: TurnStart | None = None,
    ) -> None:
        """Prepare a claim on ``key``; nothing is sent before ``__aenter__``.

        With ``start``, the acquisition tries the whole :class:`TurnStart` first; see
        :attr:`started`.
        """
        self._service = service
        self._key = key
        self._wait = _duration(wait_seconds, "wait_seconds", minimum=0.0)
        self._lease = _duration(lease_seconds, "lease_seconds", minimum=0.1)
        self._renewer: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self.token: int | None = None
        self.lost = False
        self.took_over = False
        self.open_invocation: str | None = None
        self._mark = invocation_id
        self._finished = False
        self._released = False
        self._start = start
        self.started: StartedTurn | None = None
        """What the acquisition did of ``start`` (None: only the claim was taken)."""
        self._session_taken = False

    def take_started_session(self) -> Session | None:
        """The session read with the claim, the first time only (later: None, read it again).

        It is as the store held it at the claim, so it is current only until the turn writes.
        """
        if self.started is None or self._session_taken:
            return None
        self._session_taken = True
        return self.started.session

    async def __aenter__(self) -> SessionClaim:
        """Acquire the claim, waiting up to ``wait_seconds`` for another holder.

        Raises:
            SessionNotFoundError: The session does not exist.
            SessionBusyError: Another turn still holds it after the wait.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._wait
        pause = _FIRST_POLL
        # One token for the whole acquisition: a poll repeated after a lost reply is then a
        # retry the store recognises (it answers as the landed attempt did; never "held").
        token = new_claim_token()
        start = self._start
        while True:
            if start is not None:  # first, all of it at once, if the session is free
                self.started = await self._service._start_turn(
                    self._key, self._lease, self._mark, token, start
                )
                start = None
                if self.started is not None:
                    attempt = self.started.attempt
                    break
            attempt = await self._service._try_claim(
                self._key, self._lease, self._mark, token=token
            )
            if attempt.token is not None:
                break
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise SessionBusyError(self._key[2], attempt.held_for)
            # Jittered exponential backoff: waiters on one session do not poll in step.
            await asyncio.sleep(min(remaining, pause * random.uniform(0.5, 1.0)))
            pause = min(pause * 2, _LAST_POLL)
        assert attempt.token is not None
        self.token = attempt.token
        self.took_over = attempt.took_over
        self.open_invocation = attempt.open_invocation
        self._renewer = loop.create_task(self._renew(attempt.token))
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Stop renewing and release the claim (if the store is unreachable it runs out)."""
        await self._stop_renewing()
        token = self.token
        if token is None or self.lost or self._released:
            return
        try:
            await self._service._release_claim(self._key, token, self._finished)
        except BackendUnavailableError as error:
            logger.warning(
                "Could not release the claim on session %r (%s); it runs out in %.0f s.",
                self._key[2],
                type(error).__name__,
                self._lease,
            )

    async def mark(self, invocation_id: str) -> None:
        """Record ``invocation_id`` as the session's open invocation (one round trip).

        Raises:
            ClaimLostError: The claim was taken over by another turn.
        """
        if self.open_invocation == invocation_id:
            return
        assert self.token is not None, "mark() needs a held claim"
        if not await self._service._extend_claim(self._key, self.token, self._lease, invocation_id):
            self.lost = True
            raise ClaimLostError(self._key[2])
        self.open_invocation = invocation_id

    def finish(self) -> None:
        """Say the turn ended normally: the release clears the session's open invocation."""
        self._finished = True

    async def before_releasing_commit(self) -> None:
        """Stop renewing: the next commit releases the claim itself (a turn's last event).

        A renewal after that commit would hold the released session again. Say what the
        commit did with :meth:`after_releasing_commit`.
        """
        await self._stop_renewing()

    def after_releasing_commit(self, released: bool) -> None:
        """Record that the commit released the claim (the exit then sends nothing), or not.

        Not released (the commit failed, or the store cannot release in a commit): renewing
        starts again and the exit releases as usual.
        """
        if released:
            self._released = self._finished = True
            return
        if self.token is not None and self._renewer is None and not self.lost:
            self._stop = asyncio.Event()
            self._renewer = asyncio.get_running_loop().create_task(self._renew(self.token))

    async def _stop_renewing(self) -> None:
        # Never cancelled mid-call: a store command cut off half-way can leave its pooled
        # connection out of step (seen with redis-py's cluster client). The renewer is told
        # to stop and finishes the call it is in, if any.
        renewer, self._renewer = self._renewer, None
        if renewer is None:
            return
        self._stop.set()
        # Shielded: if this task is cancelled here, the renewer still ends on its own.
        await asyncio.shield(renewer)

    async def _renew(self, token: int) -> None:
        while True:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._stop.wait(), self._lease / 3)
            if self._stop.is_set():
                return
            try:
                held = await self._service._extend_claim(self._key, token, self._lease)
            except BackendUnavailableError as error:
                logger.warning(
                    "Could not renew the claim on session %r (%s); retrying.",
                    self._key[2],
                    type(error).__name__,
                )
                continue
            if not held:
                self.lost = True
                logger.warning("The claim on session %r was taken over.", self._key[2])
                return
