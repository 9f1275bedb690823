"""Open invocations: the turns that started on a session and have not finished.

A turn's claim records its invocation on the session when it is acquired and clears it when
the turn ends normally (:mod:`adk_runtime.sessions.claims`), so the store always knows which
invocation of a session is open and how it stands:

- ``running``: its turn still holds the session (a live lease). A holder that died mid-turn
  (``kill -9``) is listed so until its lease runs out: ``held_for`` says how long at most;
- ``failed``: its turn raised (or its caller stopped reading) and released the session;
- ``crashed``: its holder died (or stalled): the lease ran out without a release.

Failed and crashed invocations are *interrupted*: ``Runner.run_async(user_id=…,
session_id=…, invocation_id=…)`` with no new message resumes them from their last committed
event. Each backend lists them through an index of the marked sessions only, so a listing
costs what it returns, not what is stored.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

__all__ = ["InvocationStatus", "OpenInvocation", "status_of"]

InvocationStatus = Literal["running", "failed", "crashed"]


@dataclasses.dataclass(frozen=True)
class OpenInvocation:
    """An invocation that started on a session and has not finished.

    Attributes:
        app_name: The app.
        user_id: The user.
        session_id: The session.
        invocation_id: The invocation.
        started_at: When its turn claimed the session (seconds since the epoch, store clock).
        status: ``running``, ``failed`` or ``crashed`` (see the module docstring).
        held_for: Seconds the lease of the turn holding the session still ran when it was
            read (store clock), 0.0 when none runs: a running invocation whose holder died
            becomes ``crashed`` (resumable) after that long; a live holder renews it. Not
            compared (it changes as time passes).
    """

    app_name: str
    user_id: str
    session_id: str
    invocation_id: str
    started_at: float
    status: InvocationStatus
    held_for: float = dataclasses.field(default=0.0, compare=False)

    @property
    def interrupted(self) -> bool:
        """True when nothing runs it any more (failed or crashed): it can be resumed."""
        return self.status != "running"

    def to_json(self) -> dict[str, str | float]:
        """The JSON form the CLI and the HTTP API give (camelCase keys, as ADK's API)."""
        return {
            "appName": self.app_name,
            "userId": self.user_id,
            "sessionId": self.session_id,
            "invocationId": self.invocation_id,
            "startedAt": self.started_at,
            "status": self.status,
            "heldFor": round(self.held_for, 3),
        }


def status_of(*, released: bool, held: bool) -> InvocationStatus:
    """The status of an open invocation from its session's claim.

    Args:
        released: The claim was released (no lease recorded).
        held: The claim's lease still runs.
    """
    if released:
        return "failed"
    return "running" if held else "crashed"
