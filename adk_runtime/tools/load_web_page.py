"""load_web_page: the text of a public web page, for a model that was given a URL.

A plain function (``LlmAgent(tools=[load_web_page])``); being synchronous, it runs in a worker
thread, never on the event loop. The URL comes from the model, so it is treated as hostile:

- only ``http`` and ``https``; host names of the local machine or of internal networks
  (``localhost``, ``*.internal``, ``metadata.goog``, ...) are refused without a lookup;
- the name is resolved once, every address must be public (not loopback, private, link-local,
  shared, reserved, nor an IPv6 form embedding such an IPv4 address), and the connection goes
  to that checked address (the ``Host`` header and TLS name stay the original), so a second
  DNS answer cannot redirect it;
- redirects are followed by hand, each target checked the same way (at most a few);
- connecting and each read time out, the whole body has a deadline and a size cap, and the
  text returned is capped too.

Behind an HTTP(S) proxy from the environment (``HTTPS_PROXY``...) the proxy resolves the name:
the name is checked, and refused if this machine resolves it to a non-public address.
"""

from __future__ import annotations

import dataclasses
import time
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urljoin, urlsplit

import requests
from requests.adapters import HTTPAdapter
from requests.utils import get_environ_proxies, select_proxy

from adk_runtime.tools._public_address import (
    Address,
    addresses_of,
    is_internal_name,
    literal,
)
from adk_runtime.tools._public_address import is_public as _is_public

__all__ = ["load_web_page"]

_DEFAULT_TIMEOUT_SECONDS = 30
"""Seconds to connect, and between two received chunks."""
_MAX_BODY_SECONDS = 60
_MAX_RESPONSE_BYTES = 10 * 1024 * 1024
_MAX_TEXT_CHARS = 100_000
_MAX_REDIRECTS = 3
_CHUNK_BYTES = 64 * 1024
_SKIPPED_TAGS = frozenset({"script", "style", "template", "noscript"})


class _Refused(Exception):
    """The URL, its host or its response is not fetched or not used."""


@dataclasses.dataclass(frozen=True)
class _Target:
    url: str
    scheme: str
    host: str
    port: int | None


def _target(url: str) -> _Target:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        raise _Refused("only http(s) URLs with a host")
    try:
        port = parts.port
    except ValueError as exc:
        raise _Refused("bad port") from exc
    host = parts.hostname.rstrip(".").lower()
    if is_internal_name(host):
        raise _Refused("internal host name")
    return _Target(url, scheme, parts.hostname, port)


def _resolve(host: str) -> list[Address]:
    addresses = addresses_of(host)
    if addresses is None:
        raise _Refused("the host name does not resolve")
    return addresses


class _PinnedAdapter(HTTPAdapter):
    """Connects to the checked address in the URL, with TLS checked against the host name."""

    def __init__(self, host: str) -> None:
        super().__init__(max_retries=0)
        self._host = host

    def build_connection_pool_key_attributes(
        self, request: requests.PreparedRequest, verify: bool | str, cert: Any = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        host_params, pool_kwargs = super().build_connection_pool_key_attributes(
            request, verify, cert
        )
        if host_params["scheme"] == "https":
            pool_kwargs["server_hostname"] = self._host
            pool_kwargs["assert_hostname"] = self._host
        return host_params, pool_kwargs


def _read_body(response: requests.Response) -> bytes:
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > _MAX_RESPONSE_BYTES:
        raise _Refused("the body is too large")
    deadline = time.monotonic() + _MAX_BODY_SECONDS
    body = bytearray()
    for chunk in response.iter_content(chunk_size=_CHUNK_BYTES):
        body += chunk
        if len(body) > _MAX_RESPONSE_BYTES:
            raise _Refused("the body is too large")
        if time.monotonic() > deadline:
            raise _Refused("the body took too long")
    return bytes(body)


def _netloc(address: Address, port: int | None) -> str:
    host = f"[{address}]" if address.version == 6 else str(address)
    return host if port is None else f"{host}:{port}"


def _get_direct(target: _Target, session: requests.Session) -> requests.Response:
    """GET ``target`` from one of its host's addresses, all of which must be public."""
    addresses = _resolve(target.host)
    if not all(_is_public(address) for address in addresses):
        raise _Refused("the host is not public")
    parts = urlsplit(target.url)
    default_port = {"http": 80, "https": 443}[target.scheme]
    host_header = target.host if ":" not in target.host else f"[{target.host}]"
    if target.port is not None and target.port != default_port:
        host_header = f"{host_header}:{target.port}"
    last_error: requests.RequestException | None = None
    session.mount(f"{target.scheme}://", _PinnedAdapter(target.host))
    for address in addresses:
        pinned = parts._replace(netloc=_netloc(address, target.port)).geturl()
        try:
            return session.get(
                pinned,
                headers={"Host": host_header},
                allow_redirects=False,
                timeout=_DEFAULT_TIMEOUT_SECONDS,
                stream=True,
            )
        except requests.RequestException as exc:
            last_error = exc
    assert last_error is not None
    raise last_error


def _direct_session() -> requests.Session:
    """A session that ignores the environment (proxies, .netrc): the address is checked."""
    session = requests.Session()
    session.trust_env = False
    return session


def _get(url: str, session: requests.Session) -> requests.Response:
    target = _target(url)
    address = literal(target.host)
    if address is not None and not _is_public(address):
        raise _Refused("the host is not public")
    if not select_proxy(url, get_environ_proxies(url)):
        return _get_direct(target, session)
    if address is None:
        try:  # advisory: the proxy resolves the name; a local miss is no reason to refuse
            addresses = _resolve(target.host)
        except _Refused:
            addresses = []
        if not all(_is_public(found) for found in addresses):
            raise _Refused("the host is not public")
    return requests.get(url, allow_redirects=False, timeout=_DEFAULT_TIMEOUT_SECONDS, stream=True)


def _fetch(url: str) -> tuple[bytes, str | None]:
    """The body of ``url`` (following a few redirects, each checked) and its charset."""
    for _ in range(_MAX_REDIRECTS + 1):
        with _direct_session() as session, _get(url, session) as response:
            location = response.headers.get("Location")
            if response.is_redirect and location:
                url = urljoin(url, location)
                continue
            if response.status_code != 200:
                raise _Refused(f"status {response.status_code}")
            return _read_body(response), _charset(response.headers.get("Content-Type", ""))
    raise _Refused("too many redirects")


def _charset(content_type: str) -> str | None:
    """The ``charset`` parameter of a Content-Type header, if it has one."""
    for parameter in content_type.split(";")[1:]:
        key, _, value = parameter.partition("=")
        if key.strip().lower() == "charset" and value.strip():
            return value.strip().strip("\"'")
    return None


class _TextCollector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.pieces: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED_TAGS:
            self._skipping += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED_TAGS and self._skipping:
            self._skipping -= 1

    def handle_data(self, data: str) -> None:
        if not self._skipping and data.strip():
            self.pieces.append(data.strip())


def _page_text(body: bytes, charset: str | None) -> str:
    """The page's visible text, one line per text node, keeping lines of more than 3 words."""
    try:
        html = body.decode(charset or "utf-8", errors="replace")
    except LookupError:  # an unknown charset name
        html = body.decode("utf-8", errors="replace")
    collector = _TextCollector()
    collector.feed(html)
    collector.close()
    lines = "\n".join(collector.pieces).splitlines()
    text = "\n".join(line for line in lines if len(line.split()) > 3)
    if len(text) > _MAX_TEXT_CHARS:
        text = f"{text[:_MAX_TEXT_CHARS]}\n... (the page's text is cut here)"
    return text


def load_web_page(url: str) -> str:
    """Fetch a public web page and return the text on it.

    Args:
        url: The page's http(s) URL.

    Returns:
        The page's text (lines of more than three words), or a message saying that it
        could not be fetched.
    """
    try:
        body, charset = _fetch(url)
    except (_Refused, requests.RequestException, ValueError):
        return f"Failed to fetch url: {url}"
    return _page_text(body, charset)
