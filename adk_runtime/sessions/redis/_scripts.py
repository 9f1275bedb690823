"""The Lua scripts of the Redis session store: their signatures and their assembled sources.

Each script is assembled once, at import, from three parts:

1. **its bindings**, written from its :class:`Signature` (``local meta_key = KEYS[1]``,
   ``local ttl_ms = tonumber(ARGV[5])``…, then ``local rest = n``, the index of the first
   ARGV entry past the named ones): the builders of :mod:`._protocol` order the arguments
   by the same signature, so an argument can never land in the wrong position;
2. **the prelude functions it calls** (``lua/prelude.lua``: the server clock, ``hset_pairs``,
   the replication marker, the TTL block, starting a session), each taking what it touches
   as arguments;
3. **its own code** (``lua/<name>.lua``), which holds only its logic.

Every key a script touches is one of its ``KEYS`` or, for the listing scripts, derived from
the app's key start (``base``), so all keys of a call share the app's hash tag (one Redis
Cluster slot). redis-py's ``register_script`` runs each assembled script by SHA
(``EVALSHA``) and loads it again when the server answers ``NOSCRIPT`` (after a restart or
``SCRIPT FLUSH``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any, Literal, get_args

from redis.commands.core import AsyncScript

__all__ = [
    "SIGNATURES",
    "SOURCES",
    "Call",
    "ScriptName",
    "Scripts",
    "Signature",
    "assemble",
    "commands_called",
]

Call = tuple[list[str], list[Any]]
"""A script's ``KEYS`` and ``ARGV``."""

ScriptName = Literal[
    "append", "claim", "create", "delete", "fork", "get", "list", "open", "scope", "start"
]


@dataclasses.dataclass(frozen=True)
class Signature:
    """The named ``KEYS`` and ``ARGV`` of one script, in order.

    Attributes:
        keys: Names of ``KEYS[1..]`` (the Lua locals are these plus ``_key``).
        args: Names of ``ARGV[1..]``; any further ARGV entries are the script's variadic
            part, from ``ARGV[rest]`` on.
        numbers: The args the script binds as numbers (``tonumber``); the others are text.
    """

    keys: tuple[str, ...]
    args: tuple[str, ...]
    numbers: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        assert self.numbers <= set(self.args), "numbers must name args"

    def build(
        self, keys: Mapping[str, str], args: Mapping[str, Any], rest: Sequence[Any] = ()
    ) -> Call:
        """Order ``keys`` and ``args`` by name (``rest`` is appended to ARGV)."""
        if keys.keys() != set(self.keys) or args.keys() != set(self.args):
            raise TypeError("script arguments do not match the script's signature")
        return [keys[name] for name in self.keys], [*(args[a] for a in self.args), *rest]

    def bindings(self) -> str:
        """The Lua lines binding every key and argument to its name, then ``rest``."""
        lines = [f"local {name}_key = KEYS[{i}]" for i, name in enumerate(self.keys, 1)]
        for i, name in enumerate(self.args, 1):
            value = f"tonumber(ARGV[{i}])" if name in self.numbers else f"ARGV[{i}]"
            lines.append(f"local {name} = {value}")
        lines.append(f"local rest = {len(self.args) + 1}")
        return "\n".join(lines)


_SESSION_OWN = ("meta", "state", "events", "event_ids", "event_times")
"""A session's own keys: those that expire with it and go with its delete."""
_WRITE_KEYS = (*_SESSION_OWN, "app_state", "user_state", "user_index", "app_index", "ack")
_SCOPE_COUNTS = ("session_pairs", "app_pairs", "user_pairs")

SIGNATURES: dict[str, Signature] = {
    "append": Signature(
        keys=(*_WRITE_KEYS, "open_index"),
        args=(
            "event_id",
            "expected_revision",
            "event_json",
            "timestamp",
            "ttl_ms",
            "session_id",
            "app_member",
            *_SCOPE_COUNTS,
            "incarnation",
            "fence",
            "release",
            "ack_ms",
        ),
        numbers=frozenset({"ttl_ms", *_SCOPE_COUNTS, "ack_ms"}),
    ),
    "claim": Signature(
        keys=("meta", "open_index", *_SESSION_OWN[1:], "ack"),
        args=("op", "token", "lease_ms", "mark", "member", "ttl_ms", "ack_ms"),
        numbers=frozenset({"lease_ms", "ttl_ms", "ack_ms"}),
    ),
    "create": Signature(
        keys=_WRITE_KEYS,
        args=(
            "nonce",
            "ttl_ms",
            "session_id",
            "app_member",
            *_SCOPE_COUNTS,
            "event_count",
            "creation",
            "ack_ms",
        ),
        numbers=frozenset({"ttl_ms", *_SCOPE_COUNTS, "event_count", "ack_ms"}),
    ),
    "get": Signature(
        keys=("meta", "state", "events", "event_times", "app_state", "user_state"),
        args=("count", "after", "since"),
        numbers=frozenset({"count", "since"}),
    ),
    "delete": Signature(
        keys=(*_SESSION_OWN, "user_index", "app_index", "open_index", "ack"),
        args=("session_id", "app_member", "idle_before", "ack_ms"),
        numbers=frozenset({"ack_ms"}),
    ),
    "list": Signature(
        keys=("index", "app_state"),
        args=("base", "user", "count", "after_score"),
        numbers=frozenset({"count"}),
    ),
    "open": Signature(keys=("open_index",), args=("base", "user", "session")),
    "scope": Signature(keys=("state",), args=()),
    "start": Signature(
        keys=(*_WRITE_KEYS, "open_index"),
        args=(
            "token",
            "lease_ms",
            "mark",
            "ttl_ms",
            "count",
            "after",
            "since",
            "identity",
            "event_id",
            "event_json",
            "timestamp",
            "session_id",
            "app_member",
            *_SCOPE_COUNTS,
            "ack_ms",
        ),
        numbers=frozenset({"lease_ms", "ttl_ms", "count", "since", *_SCOPE_COUNTS, "ack_ms"}),
    ),
    "fork": Signature(
        keys=(
            "source_meta",
            "source_events",
            "source_event_times",
            *_SESSION_OWN,
            "user_index",
            "app_index",
            "ack",
        ),
        args=(
            "source_nonce",
            "copied",
            "ttl_ms",
            "session_id",
            "app_member",
            "nonce",
            "state_pairs",
            "creation",
            "ack_ms",
        ),
        numbers=frozenset({"copied", "ttl_ms", "state_pairs", "ack_ms"}),
    ),
}

_FUNCTION = re.compile(
    r"^(?:--[^\n]*\n)*local function (\w+)\([^\n]*\n.*?^end$", re.MULTILINE | re.DOTALL
)
"""A prelude function: its comment lines, then ``local function name(`` to its ``end``."""


def _read(name: str) -> str:
    return resources.files(__name__.rpartition(".")[0]).joinpath(f"lua/{name}.lua").read_text()


def _prelude_functions(prelude: str) -> dict[str, str]:
    """The prelude's functions by name, each with the comment above it, in file order."""
    return {found.group(1): found.group(0) for found in _FUNCTION.finditer(prelude)}


def assemble(name: str, code: str, prelude: str) -> str:
    """Script ``name``: its bindings, the prelude functions ``code`` calls, then ``code``.

    A prelude function that another one it takes calls comes along too (in prelude order).
    """
    functions = _prelude_functions(prelude)
    wanted: set[str] = set()
    pending = [code]
    while pending:
        text = pending.pop()
        for function, source in functions.items():
            if function not in wanted and re.search(rf"\b{function}\(", text):
                wanted.add(function)
                pending.append(source)
    parts = [
        f"-- {name}.lua, assembled by adk_runtime/sessions/redis/_scripts.py",
        SIGNATURES[name].bindings(),
        *(source for function, source in functions.items() if function in wanted),
        code,
    ]
    return "\n\n".join(part.strip("\n") for part in parts) + "\n"


_PRELUDE = _read("prelude")
assert set(get_args(ScriptName)) == set(SIGNATURES)
SOURCES: dict[str, str] = {name: assemble(name, _read(name), _PRELUDE) for name in SIGNATURES}
"""Each script as it runs (assembled), by name."""

_CALL = re.compile(r"redis\.p?call\(\s*'([A-Za-z]+)'")


def commands_called(source: str) -> set[str]:
    """Return the Redis commands a script calls (upper case)."""
    return {name.upper() for name in _CALL.findall(source)}


@dataclasses.dataclass(frozen=True)
class Scripts:
    """The registered scripts of one client."""

    append: AsyncScript
    claim: AsyncScript
    create: AsyncScript
    delete: AsyncScript
    fork: AsyncScript
    get: AsyncScript
    list: AsyncScript
    open: AsyncScript
    scope: AsyncScript
    start: AsyncScript

    @classmethod
    def register(cls, client: Any) -> Scripts:
        """Register every script on ``client`` (nothing is sent until the first call)."""
        return cls(**{name: client.register_script(source) for name, source in SOURCES.items()})
