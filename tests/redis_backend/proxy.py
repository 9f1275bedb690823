"""A TCP proxy in front of Redis that loses replies and refuses connections on demand."""

from __future__ import annotations

import asyncio
import contextlib


class FlakyProxy:
    """Relays bytes between clients and Redis; can cut a connection at a chosen moment.

    Attributes:
        accepting: When False, new connections are closed at once (the server looks down).
        cut_on: Cut the next connection whose request contains these bytes.
        cut_before_forwarding: Cut before the request reaches Redis (it never runs) instead
            of after Redis replied (it ran, the reply is lost).
        refuse_after_cut: Stop accepting connections once a cut happened.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 6379) -> None:
        self._target = (host, port)
        self.accepting = True
        self.cut_on: bytes | None = None
        self.cut_before_forwarding = False
        self.refuse_after_cut = False
        self.cuts = 0
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.port = 0

    async def __aenter__(self) -> FlakyProxy:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._server.wait_closed()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            if self.accepting:
                await self._relay(reader, writer)
        finally:
            self._tasks.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(*self._target)
        cut = asyncio.Event()

        async def upstream() -> None:
            while data := await reader.read(65536):
                if self.cut_on is not None and self.cut_on in data:
                    self.cut_on = None
                    cut.set()
                    if self.cut_before_forwarding:
                        return
                up_writer.write(data)
                await up_writer.drain()

        async def downstream() -> None:
            while data := await up_reader.read(65536):
                if cut.is_set():
                    return  # Redis ran the command; its reply is lost
                writer.write(data)
                await writer.drain()

        pumps = [asyncio.ensure_future(upstream()), asyncio.ensure_future(downstream())]
        try:
            await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for pump in pumps:
                pump.cancel()
            await asyncio.gather(*pumps, return_exceptions=True)
            self._after(cut.is_set())
            up_writer.close()
            with contextlib.suppress(Exception):
                await up_writer.wait_closed()

    def _after(self, was_cut: bool) -> None:
        if was_cut:
            self.cuts += 1
            if self.refuse_after_cut:
                self.accepting = False
