"""``ToolCallIntegrityPlugin``: function calls in the store carry an HMAC; only verified ones run.

A durable session runs stored calls again: a confirmed tool, a tool that waited for a
credential or for input, the calls a crash left unanswered. Whoever can write to the store
could change such a call's arguments before that happens. With this plugin each call is
stamped as its event is committed (``"v1:"`` + HMAC-SHA256 over the session's ids, the
event's invocation, branch and author, and the call's name, id and JSON arguments, under
``custom_metadata["__adk_internal_fc_hmac"]``); every stamp in the session is checked before
each run, and a tool runs only when every stored copy of its call verifies and what runs is
one of them. Without the key no changed call gets a valid stamp.

Usage::

    from adk_runtime.plugins import ToolCallIntegrityPlugin

    app = App(name="bank", root_agent=agent, plugins=[ToolCallIntegrityPlugin(secret_key=key)])

Register it first: the plugins' ``on_event_callback`` stops at the first that returns an
event, and one after it must not change function calls. A failed check raises
:class:`ToolCallIntegrityError`, chained as the ``__cause__`` of the run's ``PluginError``.
The stamp format and key are google-adk's, so a session moved between the two verifies in
both with the same key.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from google.genai import types

from adk_runtime.core.base_plugin import BasePlugin
from adk_runtime.errors import AdkRuntimeError
from adk_runtime.events._internal_metadata import (
    INTERNAL_METADATA_PREFIX,
    is_restored,
    mark_restored,
)
from adk_runtime.events.event import Event

if TYPE_CHECKING:
    from adk_runtime.core.base_tool import BaseTool
    from adk_runtime.core.invocation_context import InvocationContext
    from adk_runtime.core.tool_context import ToolContext
    from adk_runtime.sessions.session import Session

__all__ = ["ToolCallIntegrityError", "ToolCallIntegrityPlugin"]

logger = logging.getLogger(__name__)

STAMPS_KEY = INTERNAL_METADATA_PREFIX + "fc_hmac"
"""``custom_metadata`` key of an event's stamps: ``{function call id: stamp}``."""

_VERSION = "v1:"


class ToolCallIntegrityError(AdkRuntimeError, ValueError):
    """A function call in the session failed its integrity check (changed, unstamped, reused)."""


def _whole_numbers_as_int(value: Any) -> Any:
    """``value`` with whole-number floats as ints, in nested dicts and lists.

    A store may give back an integer argument as ``1.0``; both must sign alike.
    """
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _whole_numbers_as_int(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_whole_numbers_as_int(item) for item in value]
    return value


def _canonical(value: Any) -> str:
    return json.dumps(
        _whole_numbers_as_int(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )


def _args_json(call: types.FunctionCall) -> dict[str, Any]:
    """The call's arguments as the stores keep them (JSON: datetimes, bytes as text)."""
    dumped: dict[str, Any] = call.model_dump(mode="json", include={"args"})
    return dumped.get("args") or {}


def _signed_bytes(session: Session, event: Event, call: types.FunctionCall) -> bytes:
    """What a stamp covers: whose session, which invocation, branch and author, which call."""
    covered = {
        "app_name": session.app_name,
        "user_id": session.user_id,
        "session_id": session.id,
        "invocation_id": event.invocation_id,
        "branch": event.branch,
        "author": event.author,
        "name": call.name,
        "id": call.id,
        "args": _args_json(call),
    }
    return _canonical(covered).encode()


def _stamps_of(event: Event) -> dict[str, str]:
    """The event's stamps; raises when they are not a map of call id to ASCII text."""
    stamps = (event.custom_metadata or {}).get(STAMPS_KEY)
    if stamps is None:
        return {}
    if not isinstance(stamps, dict) or not all(
        isinstance(key, str) and isinstance(stamp, str) and stamp.isascii()
        for key, stamp in stamps.items()
    ):
        raise ToolCallIntegrityError(f"Event {event.id!r} has a malformed integrity stamp.")
    return stamps


class ToolCallIntegrityPlugin(BasePlugin):
    """Stamps function calls as their events are committed and verifies them before use.

    - ``on_event_callback``: each call with an id gets its stamp; an event that repeats a
      call id is refused before it is stored.
    - ``before_run_callback``: every call with an id in the session verifies against its
      event's stamp, every stamp names a call of its event, no id repeats within an event.
    - ``before_tool_callback``: the call must have an id, every stored copy of it must verify
      (restored copies never run), and the tool's name and arguments must be one of them.

    Calls without a stamp are refused unless ``allow_unstamped_calls`` (then logged and let
    through: for sessions stored before the plugin was installed). A wrong stamp is always
    refused. Events marked restored (``prepare_restored_event``; a new session's events over
    the HTTP API) are history: not verified, and their calls never run.
    """

    def __init__(
        self,
        secret_key: bytes | Sequence[bytes],
        *,
        allow_unstamped_calls: bool = False,
        name: str = "tool_call_integrity",
    ) -> None:
        """Create the plugin.

        Args:
            secret_key: The HMAC key, or several while rotating: the first stamps, any of
                them verifies.
            allow_unstamped_calls: Log calls without a stamp instead of refusing them.
            name: The plugin's name.

        Raises:
            ValueError: No key, or a key that is not non-empty bytes.
        """
        super().__init__(name)
        keys = [secret_key] if isinstance(secret_key, bytes) else list(secret_key)
        if not keys or not all(isinstance(key, bytes) and key for key in keys):
            raise ValueError("secret_key must be non-empty bytes or a non-empty list of them.")
        self._keys: list[bytes] = keys
        self._allow_unstamped_calls = allow_unstamped_calls

    @staticmethod
    def prepare_restored_event(event: Event) -> Event:
        """A copy of ``event`` for another session: internal metadata dropped, marked restored.

        The copy is history: its function calls are never run.
        """
        return mark_restored(event.model_copy(deep=True))

    def _stamp(self, data: bytes) -> str:
        return _VERSION + hmac.new(self._keys[0], data, hashlib.sha256).hexdigest()

    def _verifies(self, data: bytes, stamp: str) -> bool:
        if not stamp.startswith(_VERSION):
            return False
        digest = stamp.removeprefix(_VERSION)
        return any(
            hmac.compare_digest(hmac.new(key, data, hashlib.sha256).hexdigest(), digest)
            for key in self._keys
        )

    def _unstamped(self, name: str | None, call_id: str | None) -> None:
        if not self._allow_unstamped_calls:
            raise ToolCallIntegrityError(f"{name} call {call_id!r} has no integrity stamp.")
        logger.warning("%s call %r has no integrity stamp", name, call_id)

    async def on_event_callback(
        self, *, invocation_context: InvocationContext, event: Event
    ) -> Event | None:
        """Stamp the event's calls (in place); refuse an event that repeats a call id."""
        calls = [call for call in event.get_function_calls() if call.id]
        if not calls:
            return None
        ids = [call.id for call in calls]
        if not event.partial and len(set(ids)) != len(ids):
            repeated = sorted({i for i in ids if i is not None and ids.count(i) > 1})
            raise ToolCallIntegrityError(
                f"Event {event.id!r} repeats function call ids {repeated}."
            )
        session = invocation_context.session
        stamps = {call.id: self._stamp(_signed_bytes(session, event, call)) for call in calls}
        event.custom_metadata = {**(event.custom_metadata or {}), STAMPS_KEY: stamps}
        return None

    async def before_run_callback(
        self, *, invocation_context: InvocationContext
    ) -> types.Content | None:
        """Verify every stamped call of the session (see the class docstring)."""
        session = invocation_context.session
        for event in session.events:
            calls = event.get_function_calls()
            if calls and not is_restored(event):
                self._check_event(session, event, calls)
        return None

    def _check_event(self, session: Session, event: Event, calls: list[types.FunctionCall]) -> None:
        stamps = _stamps_of(event)
        verified: set[str] = set()
        for call in calls:
            if not call.id:  # never run (before_tool_callback refuses it): nothing to check
                continue
            if call.id not in stamps:
                self._unstamped(call.name, call.id)
                continue
            if call.id in verified:
                raise ToolCallIntegrityError(
                    f"Event {event.id!r} holds function call id {call.id!r} twice."
                )
            if not self._verifies(_signed_bytes(session, event, call), stamps[call.id]):
                raise ToolCallIntegrityError(
                    f"{call.name} call {call.id!r} does not match its integrity stamp."
                )
            verified.add(call.id)
        left = sorted(stamps.keys() - verified)
        if left:  # a call renamed, given another id, or removed
            raise ToolCallIntegrityError(
                f"Event {event.id!r} has integrity stamps matching no call of it: {left}."
            )

    async def before_tool_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        """Let the tool run only as one of its verified stored calls."""
        call_id = tool_context.function_call_id
        if not call_id:
            raise ToolCallIntegrityError(
                f"{tool.name} call has no id, so its integrity cannot be checked."
            )
        session = tool_context.session
        found = [
            (event, call)
            for event in session.events
            for call in event.get_function_calls()
            if call.id == call_id
        ]
        copies = [(event, call) for event, call in found if not is_restored(event)]
        if not copies:
            if found:  # only restored copies
                raise ToolCallIntegrityError(
                    f"{tool.name} call {call_id!r} comes from restored history; it never runs."
                )
            self._unstamped(tool.name, call_id)
            return None
        for event, call in copies:  # each copy: a repeated id cannot borrow another's stamp
            stamp = _stamps_of(event).get(call_id)
            if stamp is None:
                self._unstamped(tool.name, call_id)
            elif not self._verifies(_signed_bytes(session, event, call), stamp):
                raise ToolCallIntegrityError(
                    f"{tool.name} call {call_id!r} does not match its integrity stamp."
                )
        running = _canonical(_args_json(types.FunctionCall(name=tool.name, args=tool_args)))
        if not any(
            call.name == tool.name and _canonical(_args_json(call)) == running for _, call in copies
        ):
            raise ToolCallIntegrityError(
                f"{tool.name} call {call_id!r}: the arguments it would run with are not the "
                "stored call's."
            )
        return None
