"""Host names: whether one names this machine's loopback interface, or resolves at all."""

from __future__ import annotations

import ipaddress
import socket

from adk_runtime.errors import ConfigurationError

__all__ = ["is_loopback", "unresolved_host", "unresolved_host_error"]

_NO_SUCH_NAME = frozenset(
    code for code in (socket.EAI_NONAME, getattr(socket, "EAI_NODATA", None)) if code is not None
)
"""The resolver's answers that a name does not exist (not a resolver that cannot be reached)."""


def is_loopback(host: str | None) -> bool:
    """Whether ``host`` (a name or an address, IPv6 with or without brackets) is loopback.

    ``localhost`` and its subdomains (RFC 6761) and the loopback addresses are.
    """
    host = (host or "").strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def unresolved_host(error: BaseException) -> bool:
    """Whether ``error``, or an error it was raised from, says a host name does not resolve.

    Only the resolver's "no such name" answers count: a lookup that failed for now
    (``EAI_AGAIN``, no DNS server reachable) may succeed when retried.
    """
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, socket.gaierror) and current.errno in _NO_SUCH_NAME:
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def unresolved_host_error(host: str | None, where: str) -> ConfigurationError:
    """The error for a host name (of ``where``, already redacted) that does not resolve."""
    return ConfigurationError(
        f"The host name {host or '?'!r} in {where} does not resolve (no such name in DNS): "
        "check the host in the URL; retrying will not help."
    )
