"""A small URL-scheme registry with lazy imports, shared by the artifact and memory services.

Each registry maps a URL scheme to ``"module:Class"`` and the pip requirement that provides
it; the class is imported only when a URL asks for it and builds itself through its
``from_url(url, **kwargs)`` class method. ``sqlite+aiosqlite`` falls back to ``sqlite``.
"""

from __future__ import annotations

import importlib
from typing import Any, Generic, Protocol, TypeVar, cast

from adk_runtime.errors import ConfigurationError, redact_url

__all__ = ["UrlRegistry"]

T_co = TypeVar("T_co", covariant=True)


class _FromUrl(Protocol[T_co]):
    def from_url(self, url: str, **kwargs: Any) -> T_co: ...


class UrlRegistry(Generic[T_co]):
    """URL scheme → lazily imported class that builds a ``what`` (e.g. "artifact service")."""

    def __init__(self, what: str, backends: dict[str, tuple[str, str]]) -> None:
        """Start with ``backends``: scheme → (``"module:Class"``, pip requirement)."""
        self.what = what
        self._backends = dict(backends)

    def register(self, scheme: str, target: str, requirement: str = "adk-runtime") -> None:
        """Map a URL scheme to ``"module:Class"``."""
        self._backends[scheme.lower()] = (target, requirement)

    def schemes(self) -> list[str]:
        """Return the supported URL schemes, sorted."""
        return sorted(self._backends)

    def _lookup(self, url: Any) -> tuple[str, str]:
        if not isinstance(url, str) or "://" not in url:
            raise ConfigurationError(
                f"{redact_url(str(url))!r} is not a URL for an {self.what}; expected one of: "
                + ", ".join(f"{scheme}://…" for scheme in self.schemes())
            )
        scheme = url.split(":", 1)[0].lower()
        entry = self._backends.get(scheme) or self._backends.get(scheme.split("+", 1)[0])
        if entry is None:
            raise ConfigurationError(
                f"Unknown {self.what} URL scheme {scheme!r} in {redact_url(url)!r}. "
                f"Supported schemes: {', '.join(self.schemes())}."
            )
        return entry

    def build(self, url: str, **kwargs: Any) -> T_co:
        """Import the class the URL's scheme names and build it from the URL."""
        target, requirement = self._lookup(url)
        module_name, _, class_name = target.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ConfigurationError(
                f"The {self.what} for {redact_url(url)!r} cannot be imported "
                f"({exc.name} is missing). Install it with: pip install '{requirement}'"
            ) from None
        factory = cast(_FromUrl[T_co], getattr(module, class_name))
        return factory.from_url(url, **kwargs)
