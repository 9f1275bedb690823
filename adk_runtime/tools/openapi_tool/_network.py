"""Refuse requests to private networks unless the toolset allows them (SSRF guard).

A model chooses the arguments of every call, and a document may point anywhere: without
``allow_private_network_access`` a request whose host resolves to a loopback, private,
link-local, reserved or otherwise non-global address is refused before it is sent. (A name
that resolves differently at connect time can still get through: this guards mistakes and
casual abuse, not a hostile DNS server.)
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket

__all__ = ["PrivateNetworkError", "check_public"]


class PrivateNetworkError(ValueError):
    """The request's host is on a private network and the toolset does not allow that."""


async def check_public(host: str) -> None:
    """Raise :class:`PrivateNetworkError` if ``host`` is, or resolves to, a non-global address."""
    try:
        addresses = [ipaddress.ip_address(host.strip("[]"))]
    except ValueError:
        loop = asyncio.get_running_loop()
        try:
            infos = await loop.getaddrinfo(host, None, type=socket.SOCK_STREAM)
        except socket.gaierror as exc:
            raise PrivateNetworkError(f"The host {host!r} cannot be resolved ({exc}).") from None
        addresses = [ipaddress.ip_address(info[4][0]) for info in infos]
    for address in addresses:
        if not address.is_global:
            raise PrivateNetworkError(
                f"The host {host!r} is on a private network ({address}); the toolset allows "
                "that only with allow_private_network_access=True."
            )
