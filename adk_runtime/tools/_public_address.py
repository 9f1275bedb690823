"""Whether a host a model named is public: the one check of the tools that open URLs.

``load_web_page`` and computer use's navigation both refuse hosts of the local machine or of
internal networks before anything is fetched; they share these rules so a gap closed in one is
closed in both.
"""

from __future__ import annotations

import ipaddress
import socket

__all__ = ["Address", "addresses_of", "is_internal_name", "is_public", "literal"]

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

_INTERNAL_NAMES = frozenset({"localhost", "metadata", "metadata.goog"})
_INTERNAL_SUFFIXES = (".localhost", ".local", ".internal", ".metadata.goog")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def is_internal_name(host: str) -> bool:
    """Whether ``host`` names the local machine or an internal service (no lookup)."""
    name = host.rstrip(".").lower()
    return name in _INTERNAL_NAMES or name.endswith(_INTERNAL_SUFFIXES)


def literal(host: str) -> Address | None:
    """``host`` as an IP address, or None when it is a name."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def addresses_of(host: str) -> list[Address] | None:
    """The distinct TCP addresses ``host`` resolves to (blocking: call it in a worker thread).

    None when it does not resolve (or resolves to no IPv4 or IPv6 address).
    """
    address = literal(host)
    if address is not None:
        return [address]
    try:
        found = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return None
    addresses = [
        ipaddress.ip_address(info[4][0])
        for info in found
        if info[0] in (socket.AF_INET, socket.AF_INET6)
    ]
    return list(dict.fromkeys(addresses)) or None


def is_public(address: Address) -> bool:
    """Whether ``address`` is public, and so is any IPv4 address an IPv6 form carries.

    The IPv6 forms checked: IPv4-mapped (``::ffff:a.b.c.d``), 6to4, NAT64 (``64:ff9b::/96``)
    and the deprecated IPv4-compatible ``::a.b.c.d`` (which Python counts as global).
    """
    if not address.is_global:
        return False
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is None and (address in _NAT64 or int(address) >> 32 == 0):
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is not None and not embedded.is_global:
            return False
    return True
