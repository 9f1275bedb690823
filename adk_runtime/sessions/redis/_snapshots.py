"""Sessions from the scripts' snapshots, and the window of events a read asks for."""

from __future__ import annotations

import math

from adk_runtime.events import event_from_stored
from adk_runtime.sessions.base import GetSessionConfig
from adk_runtime.sessions.redis._keys import SessionKeys
from adk_runtime.sessions.redis._protocol import GetReply
from adk_runtime.sessions.redis._values import decode_pairs, text
from adk_runtime.sessions.session import Session
from adk_runtime.sessions.state import merge_state

__all__ = ["event_window", "session_of"]


def session_of(keys: SessionKeys, reply: GetReply) -> Session:
    """Build a Session from a script's snapshot (``meta`` is ``[rev, ctime, mtime, nonce]``)."""
    session_state, app_state, user_state = (decode_pairs(pairs) for pairs in reply.states)
    session = Session(
        id=keys.session_id,
        app_name=keys.app.app_name,
        user_id=keys.user_id,
        state=merge_state(session_state, app_state, user_state),
        events=[event_from_stored(item, keys.session_id, i) for i, item in enumerate(reply.events)],
        last_update_time=float(reply.meta[2]),
        revision=int(reply.meta[0]),
    )
    session._incarnation = text(reply.meta[3]) if reply.meta[3] is not None else None
    return session


def event_window(config: GetSessionConfig | None) -> tuple[int, str]:
    """Return the get script's ``(count, after)`` arguments (-1 = every event, '' = no bound)."""
    if config is None:
        return -1, ""
    count = -1 if config.num_recent_events is None else config.num_recent_events
    after = config.after_timestamp
    if after is None:
        return count, ""
    if math.isnan(after):
        return 0, ""  # no timestamp is >= nan
    return count, repr(after)
