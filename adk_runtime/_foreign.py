"""One clear line, never a raw pydantic error, when a google-adk object is handed to us.

adk_runtime mirrors google-adk's names, so ``from google.adk.agents import LlmAgent`` handed
to adk_runtime's ``Runner`` (or a google-adk tool, model or service inside an adk_runtime
agent) is an easy slip. :func:`refuse_google_adk` finds such objects by their class's module
(nothing of google-adk is imported) and raises :class:`~adk_runtime.errors.ConfigurationError`
saying what to change. It is not a ``ValueError``, so pydantic validators let it through as
it is.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from adk_runtime.errors import ConfigurationError

__all__ = ["google_adk_class", "refuse_google_adk", "refuse_google_adk_in"]

_ADAPTERS = {
    "session": "DurableSessionService",
    "artifact": "DurableArtifactService",
    "memory": "DurableMemoryService",
}


def google_adk_class(value: object) -> str | None:
    """``module.Class`` of ``value``'s google-adk class, or None if it is not google-adk's."""
    for cls in type(value).__mro__:
        module = cls.__module__ or ""
        if module == "google.adk" or module.startswith("google.adk."):
            return f"{module}.{cls.__qualname__}"
    return None


def refuse_google_adk(where: str, **values: Any) -> None:
    """Raise if any of ``values`` (named as the caller's parameters) is a google-adk object.

    Args:
        where: What received them, e.g. ``"Runner"`` or ``"LlmAgent 'root'"``.
        **values: The arguments to check (lists and tuples are looked into).

    Raises:
        ConfigurationError: One line naming the argument and the class, and the fix.
    """
    for name, value in values.items():
        items: Iterable[Any] = value if isinstance(value, (list, tuple)) else (value,)
        for item in items:
            found = google_adk_class(item)
            if found is None:
                continue
            if type(item).__module__.startswith("adk_runtime."):
                raise ConfigurationError(
                    f"{where}: {name} is {type(item).__name__}, adk_runtime's adapter for "
                    "google-adk's Runner; give adk_runtime its .service (the adk_runtime "
                    "service underneath) instead."
                )
            raise ConfigurationError(_message(where, name, found))


def refuse_google_adk_in(where: str, data: Any) -> None:
    """:func:`refuse_google_adk` over a mapping of constructor arguments (else nothing)."""
    if isinstance(data, dict):
        refuse_google_adk(where, **{str(key): value for key, value in data.items()})


def _message(where: str, name: str, found: str) -> str:
    kind = next((kind for kind in _ADAPTERS if f"_{kind}_service" in found.lower()), None)
    if kind is not None:
        return (
            f"{where}: {name} is google-adk's {found}; adk_runtime needs its own service "
            f"(e.g. adk_runtime.sessions.session_service_from_url(url)). To keep google-adk's "
            f"Runner instead, give it adk_runtime.integrations.google_adk.{_ADAPTERS[kind]}."
        )
    return (
        f"{where}: {name} is google-adk's {found}; adk_runtime cannot run google-adk objects. "
        "Change the 'google.adk' imports to 'adk_runtime' (same names: "
        "from adk_runtime.agents import LlmAgent), or keep google-adk's Runner and store its "
        "sessions with adk_runtime.integrations.google_adk.DurableSessionService."
    )
