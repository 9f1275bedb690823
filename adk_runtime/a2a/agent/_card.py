"""Where a fetched agent card may send requests.

Only https, or http on a loopback host, and only on the origin the card came from.
"""

from __future__ import annotations

from urllib.parse import urlparse

from adk_runtime.a2a.agent._errors import AgentCardResolutionError
from adk_runtime.utils._hosts import is_loopback

_DEFAULT_PORTS = {"http": 80, "https": 443}


def origin(url: str) -> tuple[str, str, int | None]:
    parsed = urlparse(url)
    scheme = parsed.scheme.lower()
    return scheme, (parsed.hostname or "").lower(), parsed.port or _DEFAULT_PORTS.get(scheme)


def check_transport(url: str, what: str) -> None:
    parsed = urlparse(url)
    if parsed.scheme.lower() != "https" and not is_loopback(parsed.hostname):
        raise AgentCardResolutionError(f"{what} must use https (or http on a loopback host): {url}")
