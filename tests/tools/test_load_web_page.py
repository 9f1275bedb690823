"""load_web_page against a real HTTP server on loopback.

Loopback is exactly what the tool refuses, so each test that fetches a page first lets
127.0.0.1 through the address check (monkeypatching ``_is_public``); the first test shows
that without that, the server never even sees a request.
"""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import AsyncIterator

import pytest
from blockbuster import BlockBuster
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

import adk_runtime.tools.load_web_page as module
from adk_runtime.agents import LlmAgent
from adk_runtime.sessions.memory import InMemorySessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools.load_web_page import load_web_page
from tests.llm.helpers import send, start, texts
from tests.loopback_server import LoopbackServer

PAGE = """<html><head><title>A page about soup</title>
<style>body { color: red; and more words here }</style>
<script>var hidden = "this script text is never shown";</script></head>
<body><h1>Soup</h1><p>Soup is a warm and pleasant dish.</p>
<p>Tiny line</p><div>Bread goes well with soup &amp; butter.</div></body></html>"""


class Site:
    def __init__(self) -> None:
        self.requests: list[str] = []
        self.server: LoopbackServer | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return self.server.base_url

    async def page(self, request: Request) -> Response:
        self.requests.append(request.url.path)
        return HTMLResponse(PAGE)

    async def moved(self, request: Request) -> Response:
        self.requests.append(request.url.path)
        return RedirectResponse("/page", status_code=302)

    async def to_localhost(self, request: Request) -> Response:
        self.requests.append(request.url.path)
        port = request.url.port
        return RedirectResponse(f"http://localhost:{port}/page", status_code=302)

    async def loop(self, request: Request) -> Response:
        self.requests.append(request.url.path)
        return RedirectResponse("/loop", status_code=302)

    async def big(self, request: Request) -> Response:
        self.requests.append(request.url.path)
        return HTMLResponse("<p>" + "word " * 50_000 + "</p>")

    async def slow(self, request: Request) -> Response:
        self.requests.append(request.url.path)

        async def drip() -> AsyncIterator[bytes]:
            yield b"<p>first words of a slow page</p>"
            await asyncio.sleep(3)
            yield b"<p>never arrives in time</p>"

        return StreamingResponse(drip(), media_type="text/html")

    async def missing(self, request: Request) -> Response:
        self.requests.append(request.url.path)
        return HTMLResponse("<p>not here at all, sorry</p>", status_code=404)

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/page", self.page),
                Route("/moved", self.moved),
                Route("/to-localhost", self.to_localhost),
                Route("/loop", self.loop),
                Route("/big", self.big),
                Route("/slow", self.slow),
                Route("/missing", self.missing),
            ]
        )


@pytest.fixture
async def site() -> AsyncIterator[Site]:
    served = Site()
    served.server = LoopbackServer(served.app(), "web page")
    await served.server.start()
    yield served
    await served.server.stop()


@pytest.fixture
def loopback_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    checked = module._is_public

    def public_or_test_loopback(address: module._Address) -> bool:
        return address == ipaddress.ip_address("127.0.0.1") or checked(address)

    monkeypatch.setattr(module, "_is_public", public_or_test_loopback)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)


async def fetch(url: str) -> str:
    return await asyncio.to_thread(load_web_page, url)


async def test_loopback_is_refused_before_any_request(site: Site) -> None:
    assert await fetch(f"{site.url}/page") == f"Failed to fetch url: {site.url}/page"
    assert site.requests == []


@pytest.mark.usefixtures("loopback_allowed")
async def test_the_page_text_without_scripts_styles_or_short_lines(site: Site) -> None:
    text = await fetch(f"{site.url}/page")
    assert text == (
        "A page about soup\nSoup is a warm and pleasant dish.\nBread goes well with soup & butter."
    )


@pytest.mark.usefixtures("loopback_allowed")
async def test_redirects_are_followed_and_each_target_is_checked(site: Site) -> None:
    assert (await fetch(f"{site.url}/moved")).startswith("A page about soup")
    assert site.requests == ["/moved", "/page"]
    site.requests.clear()
    refused = await fetch(f"{site.url}/to-localhost")
    assert refused == f"Failed to fetch url: {site.url}/to-localhost"
    assert site.requests == ["/to-localhost"]  # the redirect target was never asked
    site.requests.clear()
    assert (await fetch(f"{site.url}/loop")).startswith("Failed to fetch url")
    assert len(site.requests) == module._MAX_REDIRECTS + 1


@pytest.mark.usefixtures("loopback_allowed")
async def test_size_time_and_status_limits(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(module, "_MAX_RESPONSE_BYTES", 10_000)
    assert (await fetch(f"{site.url}/big")).startswith("Failed to fetch url")
    monkeypatch.setattr(module, "_DEFAULT_TIMEOUT_SECONDS", 0.5)
    assert (await fetch(f"{site.url}/slow")).startswith("Failed to fetch url")
    assert (await fetch(f"{site.url}/missing")).startswith("Failed to fetch url")


@pytest.mark.usefixtures("loopback_allowed")
async def test_the_text_returned_is_capped(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(module, "_MAX_TEXT_CHARS", 100)
    text = await fetch(f"{site.url}/big")
    assert text == "word " * 20 + "\n... (the page's text is cut here)"


@pytest.mark.usefixtures("loopback_allowed")
async def test_an_agent_reads_a_page_without_blocking_the_loop(
    site: Site, blockbuster: BlockBuster
) -> None:
    model = ScriptedModel(
        replies=[function_call("load_web_page", {"url": f"{site.url}/page"}), "soup is warm"]
    )
    runner = await start(
        LlmAgent(name="reader", model=model, tools=[load_web_page]), InMemorySessionService()
    )
    events = await send(runner, "read the page")
    assert texts(events) == ["soup is warm"]
    answered = events[1].get_function_responses()[0].response
    assert answered == {
        "result": "A page about soup\nSoup is a warm and pleasant dish.\n"
        "Bread goes well with soup & butter."
    }


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "ftp://example.com/x",
        "http://localhost/",
        "http://metadata.google.internal/computeMetadata/v1/",
        "http://printer.local/",
        "http://10.0.0.1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://100.64.0.1/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[64:ff9b::a9fe:a9fe]/",  # NAT64 form of 169.254.169.254
        "http://[2002:a00:1::]/",  # 6to4 form of 10.0.0.1
        "http://[::a9fe:a9fe]/",  # IPv4-compatible form of 169.254.169.254
        "http://example.com:notaport/",
    ],
)
def test_internal_targets_are_refused_without_a_request(url: str) -> None:
    assert load_web_page(url) == f"Failed to fetch url: {url}"


def test_public_addresses_pass_the_check() -> None:
    assert module._is_public(ipaddress.ip_address("93.184.216.34"))
    assert module._is_public(ipaddress.ip_address("2606:2800:220:1:248:1893:25c8:1946"))
