"""The one place where redis-py exceptions and script refusals become adk_runtime errors."""

from __future__ import annotations

from urllib.parse import urlsplit

from redis import exceptions as redis_errors

from adk_runtime.errors import (
    RECREATED_SESSION_MESSAGE,
    AdkRuntimeError,
    BackendUnavailableError,
    ClaimLostError,
    ConfigurationError,
    SessionBusyError,
    SessionNotFoundError,
    StaleSessionError,
)
from adk_runtime.utils._hosts import unresolved_host, unresolved_host_error

# Server replies that mean "not now" rather than "never": retrying later can succeed.
_TRANSIENT_REPLIES = ("BUSY", "LOADING", "MASTERDOWN", "MISCONF", "NOREPLICAS", "OOM", "READONLY")
_UNAVAILABLE = (
    redis_errors.ConnectionError,
    redis_errors.TimeoutError,
    redis_errors.ReadOnlyError,
    redis_errors.OutOfMemoryError,
    redis_errors.ClusterError,
    redis_errors.TryAgainError,
    # MOVED or ASK left unfollowed (MovedError is an AskError): the slot is moving and the
    # command did not run there.
    redis_errors.AskError,
    redis_errors.RedisClusterException,
    OSError,
)


def translate(exc: BaseException, where: str) -> AdkRuntimeError:
    """Return the adk_runtime error for a redis-py (or socket) exception.

    Args:
        exc: What redis-py raised.
        where: The server, already redacted (``redis://host:6379/0``), for the message.
    """
    detail = f"{type(exc).__name__}: {exc}"
    if unresolved_host(exc):
        return unresolved_host_error(_host(where), where)
    if isinstance(exc, redis_errors.NoPermissionError):
        return ConfigurationError(
            f"The Redis user at {where} may not run a command the session store needs "
            f"({detail}). Grant it the hash, list, sorted set and scripting commands."
        )
    message = str(exc)
    if isinstance(exc, _UNAVAILABLE) or message.startswith(_TRANSIENT_REPLIES):
        return BackendUnavailableError(
            f"Redis at {where} is unavailable ({detail}). The operation did not complete "
            "or its outcome is unknown; retrying it is safe."
        )
    return AdkRuntimeError(f"Redis at {where} rejected a command ({detail}).")


def _host(where: str) -> str | None:
    try:
        return urlsplit(where).hostname
    except ValueError:
        return None


def append_refused(status: str, session_id: str, held_ms: int) -> AdkRuntimeError:
    """The error of an append ``append.lua`` refused (any status but ``ok`` and ``dup``).

    ``held_ms``: how long another claim still holds the session (status ``busy``).
    """
    if status == "missing":
        return SessionNotFoundError(f"Session {session_id!r} does not exist.")
    if status == "recreated":
        return StaleSessionError(RECREATED_SESSION_MESSAGE)
    if status == "lost":
        return ClaimLostError(session_id)
    if status == "busy":
        return SessionBusyError(session_id, held_ms / 1000)
    return StaleSessionError()
