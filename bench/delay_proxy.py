"""A TCP proxy that adds round-trip time, in its own process (loopback only).

``DelayProxy(target_port, rtt_ms)`` starts a child process that listens on a spare loopback
port and relays bytes to ``127.0.0.1:target_port``, holding every chunk for half the
round-trip time in each direction (order and pipelining are kept, as on a real link). Running
it in another process keeps its work off the event loop being measured.

It counts round trips exactly (:attr:`DelayProxy.round_trips`): every time a client sends after
having received (or first sends on a new connection), one more request turn crossed the link.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import time
from typing import Any


class _Turns:
    """Counts round trips: a client chunk that follows a server chunk (or opens) is a new one."""

    def __init__(self, counter: Any) -> None:
        self.counter = counter
        self.last = ""

    def saw(self, side: str) -> None:
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
                turns.saw(side)
            queue.put_nowait((time.monotonic() + delay, data))
            if not data:
                break
        await sender
    except (ConnectionError, asyncio.CancelledError):
        sender.cancel()
    finally:
        with contextlib.suppress(Exception):
            writer.close()


async def _serve(target_port: int, rtt_ms: float, ready: Any, counter: Any) -> None:
    delay = rtt_ms / 2000

    async def relay(client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        try:
            server_r, server_w = await asyncio.open_connection("127.0.0.1", target_port)
        except OSError:
            client_w.close()
            return
        turns = _Turns(counter)
        await asyncio.gather(
            _pump(client_r, server_w, delay, turns, "client"),
            _pump(server_r, client_w, delay, turns, "server"),
            return_exceptions=True,
        )

    server = await asyncio.start_server(relay, "127.0.0.1", 0)
    ready.send(server.sockets[0].getsockname()[1])
    async with server:
        await server.serve_forever()


def _main(target_port: int, rtt_ms: float, ready: Any, counter: Any) -> None:
    asyncio.run(_serve(target_port, rtt_ms, ready, counter))


class DelayProxy:
    """A delay proxy process; use as a context manager, read :attr:`port`.

    :attr:`round_trips` counts the request turns seen on every connection so far: a chunk
    from a client that follows a reply (or opens the connection) starts a new round trip.
    """

    def __init__(self, target_port: int, rtt_ms: float) -> None:
        self.target_port = target_port
        self.rtt_ms = rtt_ms
        self.port = 0
        self._process: multiprocessing.process.BaseProcess | None = None
        self._counter: Any = None

    def __enter__(self) -> DelayProxy:
        context = multiprocessing.get_context("spawn")
        receive, send = context.Pipe(duplex=False)
        self._counter = context.Value("q", 0)
        self._process = context.Process(
            target=_main, args=(self.target_port, self.rtt_ms, send, self._counter), daemon=True
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
