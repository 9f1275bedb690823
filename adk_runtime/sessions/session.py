"""Session: one conversation of one user with one app."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, alias_generators

from adk_runtime.events import Event

__all__ = ["Session"]


class Session(BaseModel):
    """A conversation: its merged state and its events in commit order.

    Attributes:
        id: The session id, unique per ``(app_name, user_id)``.
        app_name: The application.
        user_id: The user.
        state: The merged view: session keys, plus ``app:`` and ``user:`` keys with prefix.
        events: The events loaded with the session, in commit order.
        last_update_time: Wall-clock time of the last commit (float seconds; display only).
        revision: Bumped by every committed append; an append from a session object whose
            revision is behind storage fails with ``StaleSessionError``. It equals the
            sequence number of the session's last event (0 for a new session).
    """

    model_config = ConfigDict(
        extra="forbid",
        alias_generator=alias_generators.to_camel,
        populate_by_name=True,
        arbitrary_types_allowed=True,
    )

    id: str
    app_name: str
    user_id: str
    state: dict[str, Any] = Field(default_factory=dict)
    events: list[Event] = Field(default_factory=list)
    last_update_time: float = 0.0
    revision: int = 0
    _incarnation: str | None = PrivateAttr(default=None)
    """Who this session is in storage: set by the service that read or created it, and
    different for a session deleted and created again under the same id. An append from an
    object of another incarnation fails (``StaleSessionError``). None: not checked."""
    _fence: int | None = PrivateAttr(default=None)
    """The fencing token of the turn claim this object writes under (see
    :meth:`BaseSessionService.claim_session`): an append then succeeds only while that claim
    is the session's latest. None: written without a claim, refused while another turn holds
    the session."""
    _release_on_commit: bool = PrivateAttr(default=False)
    """Set by a turn before committing what it expects to be its last event: that commit
    also releases the claim ``_fence`` and clears the open invocation (as a release after
    ``claim.finish()``), in the same atomic step. The commit sets it back to False when the
    store did so; a store that cannot leaves it True, and the turn releases as usual."""
