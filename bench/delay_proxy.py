"""A TCP proxy that adds round-trip time, in its own process (loopback only).

``DelayProxy(target_port, rtt_ms)`` starts a child process that listens on a spare loopback
port and relays bytes to ``127.0.0.1:target_port``, holding every chunk for half the
round-trip time in each direction (order and pipelining are kept, as on a real link). Running
it in another process keeps its work off the event loop being measured.

It counts round trips exactly (:attr:`DelayProxy.round_trips`): every time a client sends after
having received (or first sends on a new connection), one more request turn crossed the link.
With ``protocol="http2"`` (gRPC, as Spanner's client speaks it) only chunks that carry a
request or a reply count: HTTP/2's own housekeeping (``SETTINGS``, ``PING``, ``WINDOW_UPDATE``
frames, which either side sends on its own schedule) is relayed and delayed like the rest but
starts no round trip, so the count is the calls' turns and nothing else.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import time
from typing import Any

_HTTP2_PREFACE = 24
"""Bytes of the client's connection preface (``PRI * HTTP/2.0…``), before its first frame."""
_HTTP2_CALL_FRAMES = frozenset({0, 1, 9})
"""DATA, HEADERS, CONTINUATION: the frames of a request or a reply."""


class _Frames:
    """The types of the HTTP/2 frames that start in each chunk of one direction's bytes."""

    def __init__(self, preface: int) -> None:
        self.skip = preface  # bytes still to pass over: the preface, then a frame's payload
        self.head = b""  # a frame header (9 bytes) split across chunks

    def types(self, data: bytes) -> set[int]:
        found: set[int] = set()
        at = 0
        while at < len(data):
            if self.skip:
                step = min(self.skip, len(data) - at)
                self.skip -= step
                at += step
                continue
            take = data[at : at + 9 - len(self.head)]
            self.head += take
            at += len(take)
            if len(self.head) == 9:
                found.add(self.head[3])
                self.skip = int.from_bytes(self.head[:3], "big")
                self.head = b""
        return found


class _Turns:
    """Counts round trips: a client chunk that follows a server chunk (or opens) is a new one.

    With ``http2``, a chunk counts only when a call's frame (:data:`_HTTP2_CALL_FRAMES`)
    starts in it; housekeeping frames are invisible to the count.
    """

    def __init__(self, counter: Any, *, http2: bool = False) -> None:
        self.counter = counter
        self.last = ""
        self.frames = {"client": _Frames(_HTTP2_PREFACE), "server": _Frames(0)} if http2 else None

    def saw(self, side: str, data: bytes = b"") -> None:
        if self.frames is not None and not self.frames[side].types(data) & _HTTP2_CALL_FRAMES:
            return
        if side == "client" and self.last != "client":
            with self.counter.get_lock():
                self.counter.value += 1
        self.last = side


async def _pump(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    delay: float,
    turns: _Turns,
    side: str,
) -> None:
    queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

    async def forward() -> None:
        while True:
            due, data = await queue.get()
            if not data:
                break
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            writer.write(data)
            await writer.drain()

    sender = asyncio.create_task(forward())
    try:
        while True:
            data = await reader.read(65536)
            if data:
                turns.saw(side, data)
            queue.put_nowait((time.monotonic() + delay, data))
            if not data:
                break
        await sender
    except (ConnectionError, asyncio.CancelledError):
        sender.cancel()
    finally:
        with contextlib.suppress(Exception):
            writer.close()


async def _serve(
    target_port: int, rtt_ms: float, ready: Any, counter: Any, protocol: str = "tcp"
) -> None:
    delay = rtt_ms / 2000

    async def relay(client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        try:
            server_r, server_w = await asyncio.open_connection("127.0.0.1", target_port)
        except OSError:
            client_w.close()
            return
        turns = _Turns(counter, http2=protocol == "http2")
        await asyncio.gather(
            _pump(client_r, server_w, delay, turns, "client"),
            _pump(server_r, client_w, delay, turns, "server"),
            return_exceptions=True,
        )

    server = await asyncio.start_server(relay, "127.0.0.1", 0)
    ready.send(server.sockets[0].getsockname()[1])
    async with server:
        await server.serve_forever()


def _main(target_port: int, rtt_ms: float, ready: Any, counter: Any, protocol: str) -> None:
    asyncio.run(_serve(target_port, rtt_ms, ready, counter, protocol))


class DelayProxy:
    """A delay proxy process; use as a context manager, read :attr:`port`.

    :attr:`round_trips` counts the request turns seen on every connection so far: a chunk
    from a client that follows a reply (or opens the connection) starts a new round trip.
    ``protocol="http2"`` counts gRPC's calls only (see the module docstring).
    """

    def __init__(self, target_port: int, rtt_ms: float, *, protocol: str = "tcp") -> None:
        if protocol not in ("tcp", "http2"):
            raise ValueError(f"protocol must be 'tcp' or 'http2', not {protocol!r}")
        self.target_port = target_port
        self.rtt_ms = rtt_ms
        self.protocol = protocol
        self.port = 0
        self._process: multiprocessing.process.BaseProcess | None = None
        self._counter: Any = None

    def __enter__(self) -> DelayProxy:
        context = multiprocessing.get_context("spawn")
        receive, send = context.Pipe(duplex=False)
        self._counter = context.Value("q", 0)
        self._process = context.Process(
            target=_main,
            args=(self.target_port, self.rtt_ms, send, self._counter, self.protocol),
            daemon=True,
        )
        self._process.start()
        if not receive.poll(30):
            raise RuntimeError("the delay proxy did not start")
        self.port = int(receive.recv())
        return self

    @property
    def round_trips(self) -> int:
        """Request turns relayed so far, over every connection."""
        return int(self._counter.value)

    def __exit__(self, *exc: object) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.join(10)
