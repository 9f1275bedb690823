"""Which urls the model may make the computer open: public http(s) hosts only, by default.

A computer-use model reads untrusted pages; one that is talked into opening
``http://169.254.169.254/`` or ``http://localhost:8080/admin`` would show the agent (and
whoever wrote the page) what is behind the firewall. :func:`check_url` refuses such urls.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from urllib.parse import urlsplit

__all__ = ["UrlRefusedError", "check_url"]

_Address = ipaddress.IPv4Address | ipaddress.IPv6Address

_LOCAL_NAMES = frozenset({"localhost", "metadata", "metadata.goog"})
_LOCAL_SUFFIXES = (".localhost", ".local", ".internal", ".metadata.goog")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


class UrlRefusedError(ValueError):
    """The url is not one the computer may open."""


async def check_url(url: object) -> None:
    """Refuse ``url`` unless it is http(s) to a host whose every address is public.

    A host name is resolved (in a worker thread); one that does not resolve is refused.

    Raises:
        UrlRefusedError: Why the url is refused.
    """
    host = _host_of(url)
    address = _literal(host)
    if address is not None:
        addresses = [address]
    else:
        if host.rstrip(".").lower() in _LOCAL_NAMES or host.rstrip(".").lower().endswith(
            _LOCAL_SUFFIXES
        ):
            raise UrlRefusedError("the host is a local or internal name")
        addresses = await asyncio.to_thread(_resolve, host)
    if any(_private(a) for a in addresses):
        raise UrlRefusedError("the host is not a public address")


def _host_of(url: object) -> str:
    if not isinstance(url, str):
        raise UrlRefusedError("the url is not a string")
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as exc:
        raise UrlRefusedError("the url cannot be parsed") from exc
    if parts.scheme.lower() not in ("http", "https"):
        raise UrlRefusedError("only http and https urls may be opened")
    # Browsers end the host at a backslash, urlsplit does not: the two would disagree on
    # which host "http://10.0.0.1\\@example.com/" names.
    if "\\" in parts.netloc:
        raise UrlRefusedError("the url's authority holds a backslash")
    if not parts.hostname:
        raise UrlRefusedError("the url names no host")
    return parts.hostname


def _literal(host: str) -> _Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _resolve(host: str) -> list[_Address]:
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise UrlRefusedError("the host does not resolve") from exc
    addresses = [
        ipaddress.ip_address(info[4][0])
        for info in infos
        if info[0] in (socket.AF_INET, socket.AF_INET6)
    ]
    if not addresses:
        raise UrlRefusedError("the host does not resolve")
    return addresses


def _private(address: _Address) -> bool:
    """Whether ``address``, or an IPv4 address carried inside an IPv6 one, is not public."""
    if not address.is_global:
        return True
    if isinstance(address, ipaddress.IPv6Address):
        inner = address.ipv4_mapped or address.sixtofour
        if inner is None and address in _NAT64:
            inner = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if inner is not None and not inner.is_global:
            return True
    return False
