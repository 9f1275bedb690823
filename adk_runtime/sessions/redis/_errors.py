"""The one place where redis-py exceptions become adk_runtime errors."""

from __future__ import annotations

import traceback
from pathlib import Path

import redis
from redis import exceptions as redis_errors

from adk_runtime.errors import AdkRuntimeError, BackendUnavailableError, ConfigurationError

# Server replies that mean "not now" rather than "never": retrying later can succeed.
_TRANSIENT_REPLIES = ("BUSY", "LOADING", "MASTERDOWN", "MISCONF", "NOREPLICAS", "OOM", "READONLY")
_UNAVAILABLE = (
    redis_errors.ConnectionError,
    redis_errors.TimeoutError,
    redis_errors.ReadOnlyError,
    redis_errors.OutOfMemoryError,
    redis_errors.ClusterError,
    redis_errors.TryAgainError,
    redis_errors.RedisClusterException,
    OSError,
)


_REDIS_PACKAGE = str(Path(redis.__file__).parent)


def closed_under_the_call(exc: BaseException) -> bool:
    """Whether ``exc`` is redis-py using a connection that was closed under the call.

    redis-py's cluster client closes idle connections while it re-reads the topology in a
    failover, and a connection taken from the pool at that moment is closed under the call
    that took it: redis-py then fails with an ``AttributeError`` on the closed stream instead
    of a connection error. Only an ``AttributeError`` raised in redis-py's own code counts.
    """
    if not isinstance(exc, AttributeError) or exc.__traceback__ is None:
        return False
    innermost = traceback.extract_tb(exc.__traceback__)[-1]
    return innermost.filename.startswith(_REDIS_PACKAGE)


def translate(exc: BaseException, where: str) -> AdkRuntimeError:
    """Return the adk_runtime error for a redis-py (or socket) exception.

    Args:
        exc: What redis-py raised.
        where: The server, already redacted (``redis://host:6379/0``), for the message.
    """
    detail = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, redis_errors.NoPermissionError):
        return ConfigurationError(
            f"The Redis user at {where} may not run a command the session store needs "
            f"({detail}). Grant it the hash, list, sorted set and scripting commands."
        )
    message = str(exc)
    if (
        isinstance(exc, _UNAVAILABLE)
        or message.startswith(_TRANSIENT_REPLIES)
        or closed_under_the_call(exc)
    ):
        return BackendUnavailableError(
            f"Redis at {where} is unavailable ({detail}). The operation did not complete "
            "or its outcome is unknown; retrying it is safe."
        )
    return AdkRuntimeError(f"Redis at {where} rejected a command ({detail}).")
