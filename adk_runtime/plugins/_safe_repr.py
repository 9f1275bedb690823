"""Bounded, secret-masking text of arbitrary values, for the auto-tracing plugin.

Only used when the plugin is told to record arguments and results (``record_io=True``).
Credentials never show: a value whose type is a credential type (by class name, anywhere
in its MRO, so that nothing here imports the auth packages) is written as ``<TypeName>``,
and a member, key or field whose name says it holds a secret (``api_key``, ``password``,
``client_secret``, ``Authorization`` ...) as ``<its type>``, at any depth. Containers and
models are rendered member by member; an object with a ``__repr__`` of its own keeps it
unless a secret is reachable from it, and an object with the default ``__repr__`` is shown
by its public attributes. The walk is bounded in depth and in nodes; beyond the bounds a
value is elided, never shown whole.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["is_secret_name", "public_slot_names", "render"]

logger = logging.getLogger(__name__)

_SCALARS = (str, bytes, int, float, bool, type(None))
_SECRET_TYPES = frozenset(
    {
        "AuthConfig",
        "AuthCredential",
        "AuthToolArguments",
        "Credentials",
        "HttpAuth",
        "HttpCredentials",
        "OAuth2Auth",
        "OAuth2Session",
        "ServiceAccount",
        "ServiceAccountCredential",
    }
)
_SECRET_WORDS = frozenset(
    {
        "apikey",
        "auth",
        "authorization",
        "cookie",
        "cookies",
        "credential",
        "credentials",
        "passphrase",
        "passwd",
        "password",
        "secret",
        "token",
    }
)
_SECRET_PAIRS = ("api_key", "private_key", "access_key", "session_key")
_MAX_DEPTH = 10
_MAX_NODES = 1024


@functools.lru_cache(maxsize=1024)
def is_secret_name(name: str) -> bool:
    """Whether a parameter, key or field called ``name`` conventionally holds a secret."""
    words = name.lower().replace("-", "_")
    return bool(_SECRET_WORDS.intersection(words.split("_"))) or any(
        pair in words for pair in _SECRET_PAIRS
    )


def _secret_in_mro(cls: type) -> bool:
    return any(klass.__name__ in _SECRET_TYPES for klass in cls.__mro__)


# Asked of every value rendered; spelled out, as lru_cache's wrapper takes only Hashable.
_is_secret_type: Callable[[type], bool] = functools.lru_cache(maxsize=512)(_secret_in_mro)


def public_slot_names(cls: type) -> list[str]:
    """The public names the ``__slots__`` of ``cls`` and its bases declare, in order.

    A ``__slots__`` given as one string is one name.
    """
    names: list[str] = []
    for klass in cls.__mro__:
        slots = vars(klass).get("__slots__", ())
        for slot in (slots,) if isinstance(slots, str) else slots:
            if slot and not slot.startswith("_") and slot not in names:
                names.append(slot)
    return names


def _class_repr(cls: type) -> object:
    """The ``__repr__`` the class resolves to (compared with ``object``'s by identity)."""
    for klass in cls.__mro__:
        if "__repr__" in vars(klass):
            return vars(klass)["__repr__"]
    return None


def _plain(value: Any) -> str:
    try:
        return repr(value)
    except Exception:
        return f"<unrepresentable {type(value).__name__}>"


class _Walk:
    """One rendering, with its node budget and the ids on the current path (cycles)."""

    def __init__(self) -> None:
        self.budget = _MAX_NODES
        self.path: set[int] = set()
        self.masked = False  # set whenever something is masked

    def value(self, value: Any, depth: int) -> str:
        cls = type(value)
        if isinstance(value, _SCALARS):
            return _plain(value)
        if _is_secret_type(cls):
            self.masked = True
            return f"<{cls.__name__}>"
        if isinstance(value, type) or inspect.isroutine(value) or inspect.ismodule(value):
            return _plain(value)
        self.budget -= 1
        if self.budget < 0 or depth >= _MAX_DEPTH or id(value) in self.path:
            return f"<{cls.__name__} ...>"
        self.path.add(id(value))
        try:
            return self._compound(value, depth + 1)
        finally:
            self.path.discard(id(value))

    def member(self, name: Any, value: Any, depth: int) -> str:
        if isinstance(name, str) and is_secret_name(name.lstrip("_")):
            self.masked = True
            return f"<{type(value).__name__}>"
        return self.value(value, depth)

    def _compound(self, value: Any, depth: int) -> str:
        cls = type(value)
        if isinstance(value, Mapping):
            items = (
                f"{self.value(k, depth)}: {self.member(k, v, depth)}" for k, v in value.items()
            )
            return "{" + ", ".join(items) + "}"
        if isinstance(value, tuple) and hasattr(cls, "_fields"):  # a NamedTuple
            return self._call_form(cls.__name__, zip(cls._fields, value, strict=False), depth)
        if isinstance(value, list | tuple | set | frozenset):
            return self._sequence(value, depth)
        if dataclasses.is_dataclass(value):
            fields = ((f.name, getattr(value, f.name, None)) for f in dataclasses.fields(value))
            return self._call_form(cls.__name__, fields, depth)
        if isinstance(getattr(cls, "model_fields", None), dict):  # a pydantic model
            held = {**(getattr(value, "__dict__", None) or {})}
            held.update(getattr(value, "__pydantic_extra__", None) or {})
            return self._call_form(cls.__name__, held.items(), depth)
        return self._object(value, depth)

    def _sequence(self, value: Any, depth: int) -> str:
        parts = [self.value(item, depth) for item in value]
        if isinstance(value, list):
            return "[" + ", ".join(parts) + "]"
        if isinstance(value, tuple):
            return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
        if not parts:
            return f"{type(value).__name__}()"
        body = "{" + ", ".join(parts) + "}"
        return body if isinstance(value, set) else f"frozenset({body})"

    def _call_form(self, name: str, members: Iterable[tuple[str, Any]], depth: int) -> str:
        shown = (
            f"{key}={self.member(key, item, depth)}"
            for key, item in members
            if not key.startswith("_")
        )
        return f"{name}({', '.join(shown)})"

    def _object(self, value: Any, depth: int) -> str:
        cls = type(value)
        held = dict(getattr(value, "__dict__", None) or {})
        for slot in public_slot_names(cls):
            try:
                held[slot] = getattr(value, slot)
            except AttributeError:
                continue
        own_repr = vars(object)["__repr__"] is not _class_repr(cls)
        if own_repr and not self._hides_secret(held, depth):
            return _plain(value)
        public = [(key, item) for key, item in held.items() if not key.startswith("_")]
        if not public:
            return f"<{cls.__name__}>"
        shown = " ".join(f"{key}={self.member(key, item, depth)}" for key, item in public)
        return f"<{cls.__name__} {shown}>"

    def _hides_secret(self, held: dict[str, Any], depth: int) -> bool:
        """Whether a secret is reachable from these attributes (private ones included)."""
        earlier, self.masked = self.masked, False
        for key, item in held.items():
            self.member(key, item, depth)
        found, self.masked = self.masked, earlier or self.masked
        return found


def render(value: Any, max_len: int) -> str:
    """``value`` as text, secrets masked, at most ``max_len`` characters (then a count)."""
    try:
        text = _plain(value) if isinstance(value, _SCALARS) else _Walk().value(value, 0)
    except Exception as exc:
        logger.warning("Auto-tracing could not render a %s: %s", type(value).__name__, exc)
        text = f"<{type(value).__name__} ...>"
    if len(text) > max_len:
        text = f"{text[:max_len]}...[{len(text) - max_len} more chars]"
    return text
