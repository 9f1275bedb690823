"""Typed errors of adk_runtime.

Every error the runtime raises on purpose derives from :class:`AdkRuntimeError`. Errors that
google-adk raises as ``ValueError`` (a missing session, a stale session, bad input) derive from
``ValueError`` too, so code written against google-adk keeps catching them.

Messages say what happened and what to do. They never contain a password or a full payload:
URLs pass through :func:`redact_url` before they reach a message or a log line.
"""

from __future__ import annotations

import math
import re

__all__ = [
    "AdkRuntimeError",
    "AgentConfigError",
    "AlreadyExistsError",
    "BackendUnavailableError",
    "ClaimLostError",
    "ConfigurationError",
    "DatabaseUrlError",
    "EventIdConflictError",
    "EventNotFoundError",
    "InputValidationError",
    "InvocationNotFoundError",
    "InvocationNotOpenError",
    "LlmCallsLimitExceededError",
    "MissingStateKeyError",
    "ModelNotFoundError",
    "PluginError",
    "ScriptExhaustedError",
    "SerializationError",
    "ServiceNotConfiguredError",
    "SessionBusyError",
    "SessionNotFoundError",
    "StaleSessionError",
    "UnreadableDataError",
    "UnsupportedFeatureError",
    "redact_url",
]

STALE_SESSION_MESSAGE = (
    "The session was modified in storage by another writer after this object was loaded; "
    "nothing was written. Load the session again, then append."
)
RECREATED_SESSION_MESSAGE = (
    "The session was deleted and created again since it was loaded: this object belongs to "
    "the old one. Reload the session; nothing was written."
)


class AdkRuntimeError(Exception):
    """Root of every error adk_runtime raises on purpose."""


class SessionNotFoundError(AdkRuntimeError, ValueError):
    """The session does not exist under this (app_name, user_id, session_id)."""


class AlreadyExistsError(AdkRuntimeError):
    """A session with this (app_name, user_id, session_id) already exists."""


class StaleSessionError(AdkRuntimeError, ValueError):
    """The session changed in storage after the caller loaded it; nothing was written."""

    def __init__(self, message: str = STALE_SESSION_MESSAGE) -> None:
        super().__init__(message)


class SessionBusyError(StaleSessionError):
    """Another turn holds the session (in this process or another replica); nothing was written.

    Attributes:
        session_id: The session.
        retry_after: Seconds after which the session is expected to be free again (the
            holder's lease at most; sooner when its turn ends).
    """

    def __init__(self, session_id: str, retry_after: float = 1.0) -> None:
        self.session_id = session_id
        self.retry_after = max(retry_after, 0.0)
        super().__init__(
            f"Another turn is running on session {session_id!r} (in this process or on another "
            f"replica); nothing was written. Send the message again in {_seconds(retry_after)}."
        )


class ClaimLostError(StaleSessionError):
    """This turn's claim on the session expired and another turn took it; nothing was written.

    The turn stopped being renewed for longer than its lease (a stalled process or a lost
    connection), so the session was handed on. Events committed before stay.
    """

    def __init__(self, session_id: str) -> None:
        super().__init__(
            f"This turn lost its claim on session {session_id!r}: it was not renewed within its "
            "lease and another turn took the session over. Nothing more was written; reload the "
            "session and send the message again."
        )


def _seconds(value: float) -> str:
    whole = max(1, math.ceil(value))
    return f"{whole} second" + ("" if whole == 1 else "s")


class InvocationNotOpenError(AdkRuntimeError, ValueError):
    """The invocation asked to resume is not open on the session; nothing was written.

    It finished normally, another replica resumed it already, a later turn replaced it, or it
    never ran on this session. List what can be resumed with
    ``session_service.list_interrupted_invocations``.
    """

    def __init__(self, invocation_id: str, session_id: str) -> None:
        self.invocation_id = invocation_id
        super().__init__(
            f"Invocation {invocation_id!r} is not open on session {session_id!r}: it finished, "
            "was resumed elsewhere, or was replaced by a later turn. Nothing was written; list "
            "resumable invocations with list_interrupted_invocations()."
        )


class EventIdConflictError(AdkRuntimeError, ValueError):
    """An event id stored in the session belongs to a different event; nothing was written.

    Appends are idempotent by event id: a retry of a stored event returns it. A second event
    under the same id (other author, content or actions; the timestamp and invocation id of a
    retry may differ) is refused instead of being dropped. The same holds for a message sent
    again under an idempotency key already used for a different message.

    Attributes:
        event_id: The id.
        session_id: The session that holds it.
    """

    def __init__(self, event_id: str, session_id: str) -> None:
        self.event_id = event_id
        self.session_id = session_id
        super().__init__(
            f"Event id {event_id!r} is already stored in session {session_id!r} for a different "
            "event (author, content or actions differ). Nothing was written; give the new event "
            "its own id (or the message its own idempotency key)."
        )


class EventNotFoundError(AdkRuntimeError, ValueError):
    """The event named (e.g. a fork point) is not in the session; nothing was written."""


class InvocationNotFoundError(AdkRuntimeError, ValueError):
    """No event of the session belongs to the invocation named; nothing was written."""


class LlmCallsLimitExceededError(AdkRuntimeError):
    """The invocation made more model calls than ``RunConfig.max_llm_calls`` allows."""


class MissingStateKeyError(AdkRuntimeError, KeyError):
    """An instruction names a state key (``{key}``) that is not set; use ``{key?}`` if optional."""


class PluginError(AdkRuntimeError, RuntimeError):
    """A plugin's hook raised; the plugin's own exception is chained as ``__cause__``.

    A ``RuntimeError``, as google-adk raises for a failing plugin.
    """


class ScriptExhaustedError(AdkRuntimeError):
    """A scripted test model was called more often than its script has replies."""


class SerializationError(AdkRuntimeError, ValueError):
    """A value cannot be stored as JSON; ``path`` names where it sits (e.g. ``state['a']``)."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"Cannot store the value at {path}: {reason}. Nothing was written.")


class InputValidationError(AdkRuntimeError, ValueError):
    """An argument is malformed (an id that is empty, too long or has control characters...)."""


class AgentConfigError(AdkRuntimeError, ValueError):
    """An agent YAML config file cannot be turned into an agent (``config_agent_utils``).

    A ``ValueError``, as google-adk's loader raises. The message names the file and the field
    (``tools[1].name``, ``sub_agents[0].config_path``...) when they are known.

    Attributes:
        reason: What is wrong, without the location.
        path: The config file, or None when the error did not come from a file.
        field: Where in the file, or None for the whole file.
    """

    def __init__(self, reason: str, *, path: str | None = None, field: str | None = None) -> None:
        self.reason = reason
        self.path = path
        self.field = field
        where = ", ".join(
            part
            for part in (
                f"in {path!r}" if path is not None else "",
                f"field {field!r}" if field else "",
            )
            if part
        )
        super().__init__(f"Invalid agent config {where}: {reason}" if where else reason)


class ConfigurationError(AdkRuntimeError):
    """The runtime is configured wrongly (unknown URL, schema behind, missing extra...).

    Not a ``ValueError``: pydantic would turn one raised while an agent or a config model
    validates into a ``ValidationError``, hiding the type. Subclasses that google-adk
    raises as ``ValueError`` and that are never raised inside validation add it.
    """


class ServiceNotConfiguredError(ConfigurationError, ValueError):
    """A context call needs a service (memory, artifacts, credentials) the Runner lacks.

    A ``ValueError`` too, as google-adk raises for a missing service.
    """


class DatabaseUrlError(ConfigurationError, ValueError):
    """A database URL or engine cannot be used.

    Malformed, an unsupported database, a synchronous driver or one not installed, or both or
    neither of ``db_url`` and ``db_engine`` given. A ``ValueError`` too, as google-adk's
    ``DatabaseSessionService`` raises for these.
    """


class ModelNotFoundError(ConfigurationError, ValueError):
    """No registered model class serves a model name (``LLMRegistry.resolve``).

    A ``ValueError`` too, as google-adk raises for an unknown model.
    """


class UnsupportedFeatureError(AdkRuntimeError, NotImplementedError):
    """A google-adk feature adk_runtime does not implement was used (the message names it).

    The names of such features exist here only so that code and tests written for google-adk
    import unchanged; using one raises this error at once rather than doing nothing.
    """


class UnreadableDataError(AdkRuntimeError):
    """Something stored cannot be read back (written by an older version, or by hand).

    The message names the session and the event; the session can still be deleted and
    exported (an export copies the stored JSON as it is).
    """


class BackendUnavailableError(AdkRuntimeError, ConnectionError):
    """The storage backend could not be reached or dropped the connection mid-call.

    The operation did not complete. For an append, the store is consistent: the event is
    either fully stored or not at all; retrying the same event is safe (appends are idempotent
    by event id).
    """


_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")
_QUERY_SECRET = re.compile(r"(?i)([?&;](?:password|pass|pwd|secret|token|api_key)=)[^&;#]*")


def redact_url(url: str) -> str:
    """Return ``url`` with any password (and secret query parameters) replaced by ``***``.

    The user information ends at the first ``@`` after ``scheme://``, as the drivers parse
    it (SQLAlchemy takes a password up to the ``@``, so ``#``, ``/`` and ``?`` may appear in
    it unencoded). Whatever follows the first ``:`` of that part is hidden. When in doubt the
    function hides more, never less.

    Args:
        url: A database or Redis URL, possibly with credentials.

    Returns:
        The URL safe to show in a message or a log line.
    """
    text = str(url)
    scheme = _SCHEME.match(text)
    if scheme is not None:
        rest = text[scheme.end() :]
        userinfo, at, tail = rest.partition("@")
        if at and ":" in userinfo:
            user = userinfo.split(":", 1)[0]
            text = f"{scheme.group(0)}{user}:***@{tail}"
    return _QUERY_SECRET.sub(r"\1***", text)
