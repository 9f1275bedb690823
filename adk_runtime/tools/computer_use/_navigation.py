"""Which urls the model may make the computer open: public http(s) hosts only, by default.

A computer-use model reads untrusted pages; one that is talked into opening
``http://169.254.169.254/`` or ``http://localhost:8080/admin`` would show the agent (and
whoever wrote the page) what is behind the firewall. :func:`check_url` refuses such urls.
"""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

from adk_runtime.tools._public_address import (
    Address,
    addresses_of,
    is_internal_name,
    is_public,
    literal,
)

__all__ = ["UrlRefusedError", "check_url"]


class UrlRefusedError(ValueError):
    """The url is not one the computer may open."""


async def check_url(url: object) -> None:
    """Refuse ``url`` unless it is http(s) to a host whose every address is public.

    A host name is resolved (in a worker thread); one that does not resolve is refused.

    Raises:
        UrlRefusedError: Why the url is refused.
    """
    host = _host_of(url)
    address = literal(host)
    if address is not None:
        addresses = [address]
    else:
        if is_internal_name(host):
            raise UrlRefusedError("the host is a local or internal name")
        addresses = await asyncio.to_thread(_resolve, host)
    if not all(is_public(a) for a in addresses):
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


def _resolve(host: str) -> list[Address]:
    addresses = addresses_of(host)
    if addresses is None:
        raise UrlRefusedError("the host does not resolve")
    return addresses
