"""The listening socket of ``serve`` and ``mcp --transport streamable-http``, bound up front.

Bound before the server starts (and before anything says "serving on"), so that a port in use,
a host name that does not resolve or an address not of this machine is one error line
(:class:`~adk_runtime.errors.ConfigurationError`), not uvicorn's log lines after the start.
"""

from __future__ import annotations

import errno
import socket

from adk_runtime.errors import ConfigurationError
from adk_runtime.utils._hosts import unresolved_host

__all__ = ["bind", "url_host"]


def url_host(host: str) -> str:
    """``host`` as a URL names it (an IPv6 address in brackets)."""
    bare = host.strip("[]")
    return f"[{bare}]" if ":" in bare else bare


def bind(host: str, port: int) -> socket.socket:
    """The listening socket (bound, not yet listening), or a ConfigurationError saying why not.

    Bound as uvicorn binds (``SO_REUSEADDR``; IPv6 for an address with a colon), before the
    server starts, so its errors are ours to word.
    """
    bare = host.strip("[]")
    listener = socket.socket(socket.AF_INET6 if ":" in bare else socket.AF_INET)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((bare, port))
    except OSError as error:
        listener.close()
        raise ConfigurationError(_problem(host, port, error)) from None
    return listener


def _problem(host: str, port: int, error: OSError) -> str:
    if unresolved_host(error):
        return f"--host {host!r} does not resolve (no such name in DNS): check the host name."
    if error.errno == errno.EADDRINUSE:
        return (
            f"Port {port} on {host} is in use (another server listens there): stop it, or "
            "choose another --port."
        )
    if error.errno == errno.EADDRNOTAVAIL:
        return f"--host {host} is not an address of this machine: use one of its addresses."
    if error.errno == errno.EACCES:
        return f"Port {port} needs privileges to listen on: choose a port above 1023."
    return f"Cannot listen on {host}:{port} ({error.strerror or error})."
