"""Driver errors translated into adk_runtime's typed errors, at one boundary.

Every SQL call of the runtime runs inside :func:`translate_errors`. A dropped or refused
connection, a busy database or a server shutting down becomes
:class:`~adk_runtime.errors.BackendUnavailableError`; a missing table becomes
:class:`~adk_runtime.errors.ConfigurationError` naming the command that creates the schema.
Messages carry the redacted URL and the driver's error class, never SQL parameters.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Iterator

from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import make_url

from adk_runtime.errors import (
    AdkRuntimeError,
    BackendUnavailableError,
    ConfigurationError,
    InputValidationError,
    UnreadableDataError,
    redact_url,
)
from adk_runtime.utils._hosts import unresolved_host, unresolved_host_error

__all__ = ["is_driver_disconnect", "refusal_typed", "translate_errors", "upgrade_hint"]

# Classified by exception type, SQLSTATE (PostgreSQL) and result code (SQLite), never by
# message text. The one exception: SQLite reports a missing table with the generic
# SQLITE_ERROR code, so "no such table" is read from its message.
_UNDEFINED_TABLE = "42P01"
_SQLITE_TRANSIENT = {5, 6, 10, 13, 15}  # BUSY, LOCKED, IOERR, FULL, PROTOCOL


def upgrade_hint(url: str) -> str:
    """The command that brings the schema at ``url`` up to date."""
    return f"adk-runtime db upgrade --url '{redact_url(url)}'"


def _driver_name(error: BaseException) -> str:
    orig = getattr(error, "orig", None)
    inner = orig if isinstance(orig, BaseException) else error
    return type(inner).__name__


def _driver_text(error: BaseException) -> str:
    orig = getattr(error, "orig", None)
    text = str(orig if orig is not None else error)
    return text.splitlines()[0][:200] if text else ""


def _is_missing_table(error: BaseException) -> bool:
    if _sqlstate(error) == _UNDEFINED_TABLE:
        return True
    found = _sqlite_code(error)
    return found is not None and found[0] == 1 and "no such table" in _driver_text(error)


def _is_unavailable(error: BaseException) -> bool:
    if isinstance(error, sa_exc.IntegrityError):
        return False
    if isinstance(error, sa_exc.InterfaceError):  # the connection is closed or broken
        return True
    if _sqlstate(error).startswith(_UNAVAILABLE_SQLSTATES):  # e.g. 57P03 "starting up"
        return True
    found = _sqlite_code(error)
    if found is not None:
        return found[0] in _SQLITE_TRANSIENT
    orig = getattr(error, "orig", None)
    return is_driver_disconnect(orig) if isinstance(orig, BaseException) else False


_POOLER = (
    "its prepared statements collide or vanish between statements, as behind PgBouncer in "
    "transaction pooling mode; add ?statement_cache_size=0 to the URL (nothing was written)"
)
_CONFIGURATION_SQLSTATES = {
    "3D000": "the database does not exist; create it first (e.g. createdb)",
    "28000": "the server rejected the user (check the user name and pg_hba.conf)",
    "28P01": "password authentication failed",
    # Prepared statements that vanish or collide between statements: the connection goes
    # through a transaction-pooling proxy (PgBouncer) that hands each statement another
    # server connection.
    "42P05": _POOLER,
    "26000": _POOLER,
}


def _sqlstate(error: BaseException) -> str:
    for candidate in (error, getattr(error, "orig", None), error.__cause__):
        state = getattr(candidate, "sqlstate", None) or getattr(candidate, "pgcode", None)
        if isinstance(state, str):
            return state
    return ""


def _configuration(error: BaseException, url: str) -> Exception | None:
    reason = _CONFIGURATION_SQLSTATES.get(_sqlstate(error))
    if reason is None:
        return None
    return ConfigurationError(f"Cannot use the database at {redact_url(url)}: {reason}.")


# SQLite primary result codes (the low byte of an extended code).
_SQLITE_READONLY, _SQLITE_CORRUPT, _SQLITE_CANTOPEN, _SQLITE_NOTADB = 8, 11, 14, 26


def _sqlite_code(error: BaseException) -> tuple[int, str] | None:
    for candidate in (error, getattr(error, "orig", None)):
        code = getattr(candidate, "sqlite_errorcode", None)
        if isinstance(code, int):
            return code & 0xFF, str(getattr(candidate, "sqlite_errorname", code))
    return None


def _sqlite_problem(error: BaseException, url: str) -> Exception | None:
    """A SQLite file that is read-only, damaged or cannot be opened: not worth a retry."""
    found = _sqlite_code(error)
    if found is None:
        return None
    code, name = found
    where = redact_url(url)
    if code == _SQLITE_READONLY:
        return ConfigurationError(
            f"The SQLite database at {where} is read-only for this process ({name}): writes "
            "cannot succeed, retrying will not help. Make the file and its folder writable. "
            "Reads still work."
        )
    if code in (_SQLITE_CORRUPT, _SQLITE_NOTADB):
        return UnreadableDataError(
            f"The file at {where} is not a SQLite database or is damaged ({name}). Restore "
            "it from a backup (or point the URL at another file); nothing was written to it."
        )
    if code == _SQLITE_CANTOPEN:
        return ConfigurationError(
            f"Cannot open the SQLite file at {where} ({name}): does its folder exist, and may "
            "this process read and write it?"
        )
    return None


def _classify(error: BaseException, url: str) -> Exception | None:
    where = redact_url(url)
    if unresolved_host(error):
        return unresolved_host_error(make_url(url).host, where)
    configuration = _configuration(error, url) or _sqlite_problem(error, url)
    if configuration is not None:
        return configuration
    if isinstance(error, sa_exc.DBAPIError) and error.connection_invalidated:
        return BackendUnavailableError(
            f"The connection to {where} was lost ({_driver_name(error)}); the call was "
            "committed whole or not at all. Retry it (an append is idempotent by event id)."
        )
    if _is_missing_table(error):
        return ConfigurationError(
            f"The database at {where} has no adk_runtime schema. Run: {upgrade_hint(url)}"
        )
    if _is_unavailable(error):
        return BackendUnavailableError(
            f"The database at {where} is unavailable ({_driver_name(error)}: "
            f"{_driver_text(error)}); the operation did not complete. Retry it."
        )
    return None


_UNAVAILABLE_SQLSTATES = ("08", "40", "53", "57")  # connection, rollback, resources, operator


def _asyncpg_errors() -> tuple[type[BaseException], ...]:
    """Asyncpg's (PostgresError, InterfaceError, InternalClientError), if it is installed."""
    try:
        import asyncpg
    except ImportError:  # a SQLite-only install (no 'postgres' extra)
        return ()
    return (asyncpg.PostgresError, asyncpg.InterfaceError, asyncpg.InternalClientError)


def is_driver_disconnect(error: BaseException) -> bool:
    """Whether a raw driver error means the connection is unusable (asyncpg)."""
    # InternalClientError: the protocol is out of step (seen after pg_terminate_backend).
    if isinstance(error, (OSError, asyncio.TimeoutError, *_asyncpg_errors()[1:])):
        return True
    sqlstate = getattr(error, "sqlstate", None) or ""
    postgres = _asyncpg_errors()[:1]
    return (
        bool(postgres)
        and isinstance(error, postgres)
        and sqlstate.startswith(_UNAVAILABLE_SQLSTATES)
    )


def _classify_driver(error: BaseException, url: str) -> Exception | None:
    where = redact_url(url)
    configuration = _configuration(error, url) or _sqlite_problem(error, url)
    if configuration is not None:
        return configuration
    text = str(error).splitlines()[0][:200] if str(error) else ""
    if _is_missing_table(error):
        return ConfigurationError(
            f"The database at {where} has no adk_runtime schema. Run: {upgrade_hint(url)}"
        )
    found = _sqlite_code(error)
    if is_driver_disconnect(error) or (found is not None and found[0] in _SQLITE_TRANSIENT):
        return BackendUnavailableError(
            f"The database at {where} is unavailable ({type(error).__name__}: {text}); the "
            "call was committed whole or not at all. Retry it (an append is idempotent by "
            "event id)."
        )
    return None


_DRIVER_ERRORS: tuple[type[BaseException], ...] = (sqlite3.Error, *_asyncpg_errors())


@contextlib.contextmanager
def translate_errors(url: str) -> Iterator[None]:
    """Re-raise driver and connection errors raised inside as typed adk_runtime errors.

    Args:
        url: The database URL (redacted before it reaches a message).
    """
    try:
        yield
    except (sa_exc.DBAPIError, sa_exc.InterfaceError) as error:
        translated = _classify(error, url)
        if translated is None:
            raise
        raise translated from error
    except sa_exc.TimeoutError as error:  # the pool had no free connection in pool_timeout
        raise BackendUnavailableError(
            f"No free connection to {redact_url(url)} within the pool's timeout (all of the "
            "pool's connections in use); nothing was sent. Retry it, or raise pool_size or "
            "pool_timeout."
        ) from error
    except (OSError, asyncio.TimeoutError) as error:
        if unresolved_host(error):
            raise unresolved_host_error(make_url(url).host, redact_url(url)) from error
        raise BackendUnavailableError(
            f"Cannot reach the database at {redact_url(url)} ({type(error).__name__}); "
            "the operation did not complete. Retry it."
        ) from error
    except _DRIVER_ERRORS as error:
        translated = _classify_driver(error, url)
        if translated is None:
            raise
        raise translated from error


_BIND_ERRORS = (OverflowError, UnicodeError)
"""What a driver raises for a parameter it cannot bind (an integer out of range, text that is
not valid Unicode), before anything is sent."""


_REFUSALS: tuple[type[BaseException], ...] = (sa_exc.DBAPIError, *_DRIVER_ERRORS)


def refusal_typed(error: Exception, url: str, what: str) -> Exception | None:
    """The typed error for a driver error :func:`translate_errors` leaves raw, or None.

    For a call that writes whole or nothing (an append), in its ``except`` clause (a
    ``try`` costs the hot path nothing): a parameter the driver cannot bind becomes
    :class:`~adk_runtime.errors.InputValidationError`, any other driver error (a constraint
    or trigger refusing the row) :class:`~adk_runtime.errors.AdkRuntimeError`. Messages name
    the error's class only, never a value. None: not a driver error (raise it as it is).

    Args:
        error: What the call raised.
        url: The database URL (redacted before it reaches a message).
        what: The call, for the message (e.g. ``"the append"``).
    """
    if isinstance(error, AdkRuntimeError):
        return None
    if isinstance(error, _BIND_ERRORS):
        return InputValidationError(
            f"A value of {what} cannot be stored ({type(error).__name__}); nothing of it was "
            "written."
        )
    if isinstance(error, _REFUSALS):
        return AdkRuntimeError(
            f"The database at {redact_url(url)} refused {what} ({_driver_name(error)}); "
            "nothing of it was written."
        )
    return None
