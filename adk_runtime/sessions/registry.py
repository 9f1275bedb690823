"""Storage by configuration: one URL picks the session backend (DESIGN §5).

Backends register a URL scheme with the import path of their class and the extra that
installs them; the class is imported only when a URL asks for it. A class builds itself from
the URL through its ``from_url(url, **kwargs)`` class method.
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol, cast

from adk_runtime.errors import ConfigurationError, redact_url
from adk_runtime.sessions.base import BaseSessionService

__all__ = ["register_session_backend", "session_service_from_url", "supported_schemes"]


class _FromUrl(Protocol):
    def from_url(self, url: str, **kwargs: Any) -> BaseSessionService: ...


# scheme -> (module:Class, pip requirement that provides its driver)
_BACKENDS: dict[str, tuple[str, str]] = {
    "memory": ("adk_runtime.sessions.memory:InMemorySessionService", "adk-runtime"),
    "redis": ("adk_runtime.sessions.redis:RedisSessionService", "adk-runtime"),
    "rediss": ("adk_runtime.sessions.redis:RedisSessionService", "adk-runtime"),
    **{
        scheme: ("adk_runtime.sessions.sql:DatabaseSessionService", "adk-runtime")
        for scheme in ("sqlite", "sqlite+aiosqlite", "postgresql", "postgresql+asyncpg", "postgres")
    },
}


def register_session_backend(scheme: str, target: str, requirement: str = "adk-runtime") -> None:
    """Map a URL scheme (e.g. ``"sqlite+aiosqlite"``) to ``"module:Class"``."""
    _BACKENDS[scheme.lower()] = (target, requirement)


def supported_schemes() -> list[str]:
    """Return the URL schemes a session service can be built from, sorted."""
    return sorted(_BACKENDS)


def _lookup(url: str) -> tuple[str, str]:
    if not isinstance(url, str) or ("://" not in url and not url.startswith("sqlite:")):
        raise ConfigurationError(
            f"{redact_url(str(url))!r} is not a storage URL; expected one of: "
            + ", ".join(f"{scheme}://…" for scheme in supported_schemes())
        )
    scheme = url.split(":", 1)[0].lower()
    entry = _BACKENDS.get(scheme) or _BACKENDS.get(scheme.split("+", 1)[0])
    if entry is None:
        raise ConfigurationError(
            f"Unknown storage URL scheme {scheme!r} in {redact_url(url)!r}. Supported schemes: "
            + ", ".join(supported_schemes())
            + "."
        )
    return entry


def session_service_from_url(url: str, **kwargs: Any) -> BaseSessionService:
    """Build the session service a URL names.

    Args:
        url: ``memory://``, ``sqlite+aiosqlite:///path.db``, ``postgresql+asyncpg://…`` or
            ``redis://…`` (see the README for every form).
        **kwargs: Passed to the backend's constructor (e.g. ``auto_migrate=True``).

    Raises:
        ConfigurationError: The scheme is unknown, or the backend cannot be imported.
    """
    target, requirement = _lookup(url)
    module_name, _, class_name = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigurationError(
            f"The backend for {redact_url(url)!r} cannot be imported ({exc.name} is missing). "
            f"Install it with: pip install '{requirement}'"
        ) from None
    factory = cast(_FromUrl, getattr(module, class_name))
    return factory.from_url(url, **kwargs)
