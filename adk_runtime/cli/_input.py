"""Read lines from stdin without blocking the event loop, and without outliving Ctrl-C.

``input()`` in a worker thread keeps the process alive after Ctrl-C until Enter is pressed
(the interpreter waits for the thread), so the first Ctrl-C seemed to do nothing. Here each
read is one ``os.read`` on the file descriptor in a daemon thread: Ctrl-C cancels the wait at
once, the abandoned thread holds no Python lock and dies with the process. The terminal's own
line editing (canonical mode) still applies.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading

__all__ = ["LineReader"]

_CHUNK = 65536


class LineReader:
    """Lines of a file descriptor (stdin by default), read asynchronously."""

    def __init__(self, fd: int = 0) -> None:
        """Read from ``fd``.

        Args:
            fd: The file descriptor (a terminal, a pipe or a file).
        """
        self._fd = fd
        self._buffer = b""
        self._eof = False

    async def readline(self) -> str | None:
        """The next line without its line ending, or None at the end of input (Ctrl-D)."""
        while b"\n" not in self._buffer and not self._eof:
            chunk = await _read(self._fd)
            self._eof = not chunk
            self._buffer += chunk
        if b"\n" in self._buffer:
            line, _, self._buffer = self._buffer.partition(b"\n")
        elif self._buffer:
            line, self._buffer = self._buffer, b""
        else:
            return None
        return line.decode("utf-8", errors="replace").rstrip("\r")


async def _read(fd: int) -> bytes:
    """One ``os.read`` in a daemon thread; cancelling the wait leaves the thread behind."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[bytes] = loop.create_future()

    def deliver(result: bytes | BaseException) -> None:
        if future.done():
            return
        if isinstance(result, BaseException):
            future.set_exception(result)
        else:
            future.set_result(result)

    def read() -> None:
        try:
            data: bytes | BaseException = os.read(fd, _CHUNK)
        except OSError as exc:
            data = exc
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
            loop.call_soon_threadsafe(deliver, data)

    threading.Thread(target=read, name="adk-runtime-stdin", daemon=True).start()
    return await future
