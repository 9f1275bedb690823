"""Where a fetched agent card may send requests, and what of its description is adopted.

Only https, or http on a loopback host, and only on the origin the card came from.
"""

from __future__ import annotations

from urllib.parse import urlparse

from adk_runtime.a2a.agent._errors import AgentCardResolutionError
from adk_runtime.agents._quoting import quote
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


CARD_DESCRIPTION_LIMIT = 1024
"""The most characters of a fetched card's description an agent adopts."""


def adopted_description(description: str, source: str | None) -> str:
    """The description a RemoteA2aAgent takes from its card.

    A parent agent puts its sub-agents' descriptions into its own instruction, so a card
    fetched over the network (``source`` an http(s) URL) gives a description cut to
    :data:`CARD_DESCRIPTION_LIMIT` characters, marked when cut, and quoted as another agent's
    words are (``agents._quoting``); a card object or a file of the application's is its own
    text and is taken as it is.
    """
    if not (source or "").startswith(("http://", "https://")):
        return description
    kept = description[:CARD_DESCRIPTION_LIMIT]
    if len(kept) < len(description):
        kept += " [cut: the description is longer]"
    return quote(kept)
