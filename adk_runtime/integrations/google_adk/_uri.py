"""``adkrt+<scheme>://…`` URIs: an adk_runtime store URL behind a prefix of its own."""

from __future__ import annotations

from adk_runtime.errors import ConfigurationError

SCHEME_PREFIX = "adkrt+"
"""What ``adkrt+sqlite+aiosqlite:///app.db`` puts before an adk_runtime store URL."""


def store_url(uri: str) -> str:
    """The adk_runtime URL inside ``uri`` (``adkrt+`` removed; other URLs as they are)."""
    if not isinstance(uri, str) or not uri:
        raise ConfigurationError("A store URI is required, e.g. 'adkrt+sqlite+aiosqlite:///a.db'.")
    if uri.lower().startswith(SCHEME_PREFIX):
        return uri[len(SCHEME_PREFIX) :]
    return uri


def check_one_source(kind: str, uri: str | None, service: object | None) -> None:
    """Refuse both or neither of ``uri`` and ``service``."""
    if (uri is None) == (service is None):
        raise ConfigurationError(
            f"Durable{kind}Service needs exactly one of uri= (an adkrt+… or adk_runtime store "
            "URL) and service= (an adk_runtime service object)."
        )
