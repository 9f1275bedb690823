"""Collect a subprocess's output under a size cap and a deadline, then end its process group.

Shared by :class:`LocalEnvironment` and ``ExecuteBashTool``. The subprocess must be started
with ``start_new_session=True``, so that its pid names a process group holding everything it
started: on a timeout (or when the caller is cancelled) the whole group is killed, and so is
whatever the command left running in the background once it exits.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import signal
from collections.abc import Awaitable
from typing import Any

__all__ = ["ProcessOutput", "collect", "kill_group", "started"]

logger = logging.getLogger(__name__)

_CHUNK = 64 * 1024
# How long the pipes may stay open once the process group was killed (a descendant that left
# the group can hold them); after that its output is given up on.
_AFTER_KILL_SECONDS = 5.0


@dataclasses.dataclass
class _Capture:
    limit: int
    kept: bytearray = dataclasses.field(default_factory=bytearray)
    dropped: int = 0

    def add(self, chunk: bytes) -> None:
        room = self.limit - len(self.kept)
        self.kept += chunk[: max(room, 0)]
        self.dropped += max(len(chunk) - max(room, 0), 0)

    def text(self) -> str:
        text = bytes(self.kept).decode("utf-8", errors="replace")
        if self.dropped:
            text += f"\n... ({self.dropped} more bytes of output dropped)"
        return text


@dataclasses.dataclass
class ProcessOutput:
    """What a finished (or killed) subprocess wrote.

    Attributes:
        stdout: Standard output, decoded; a note at the end says how much was dropped.
        stderr: Standard error, the same way.
        returncode: The exit status (negative: killed by that signal).
        timed_out: The deadline passed and the process group was killed.
    """

    stdout: str
    stderr: str
    returncode: int | None
    timed_out: bool


async def _drain(stream: asyncio.StreamReader | None, capture: _Capture) -> None:
    """Read ``stream`` to its end, keeping at most ``capture.limit`` bytes of it."""
    if stream is None:
        return
    while True:
        chunk: object = await stream.read(_CHUNK)
        if not isinstance(chunk, bytes) or not chunk:  # b"" (or anything else) ends it
            return
        capture.add(chunk)


def kill_group(process: asyncio.subprocess.Process) -> None:
    """SIGKILL the process group ``process`` leads (the process alone where there are none)."""
    pid: int | None = process.pid  # None for a process that never started
    if pid is None:
        return
    sigkill = getattr(signal, "SIGKILL", None)
    if hasattr(os, "killpg") and sigkill is not None:
        # The group outlives its leader while a member runs, so its id cannot be reused
        # until every member is gone; an empty group answers ESRCH.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, sigkill)
    else:  # pragma: no cover - platforms without process groups
        with contextlib.suppress(ProcessLookupError):
            process.kill()


async def started(
    starting: Awaitable[asyncio.subprocess.Process],
) -> asyncio.subprocess.Process:
    """The process ``starting`` starts (``asyncio.create_subprocess_*`` with a new session).

    A caller cancelled while the process starts does not leave it running: the start is
    let finish (it is quick), then the process group is killed and reaped before the
    cancellation goes on. (Cancelled inside asyncio's start, the process would be killed
    without its group, and the start would wait until the group's last member closed the
    pipes, that is until the command ended.)
    """
    start = asyncio.ensure_future(starting)
    try:
        return await asyncio.shield(start)
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):  # it failed to start: nothing to end
            process = await start
            kill_group(process)
            await process.wait()
        raise


async def collect(
    process: asyncio.subprocess.Process, *, timeout: float | None, limit: int
) -> ProcessOutput:
    """Wait for ``process`` to exit and its pipes to close, for at most ``timeout`` seconds.

    At most ``limit`` bytes of each stream are kept (the rest is read and dropped, so the
    process never blocks on a full pipe). On a timeout, or if the caller is cancelled, the
    process group is killed; afterwards the group is killed in any case, ending anything
    the command left running.
    """
    out, err = _Capture(limit), _Capture(limit)
    finished = asyncio.gather(
        _drain(process.stdout, out), _drain(process.stderr, err), process.wait()
    )
    timed_out = False
    try:
        await asyncio.wait_for(asyncio.shield(finished), timeout=timeout)
    except asyncio.TimeoutError:
        timed_out = True
    except asyncio.CancelledError:
        kill_group(process)
        finished.cancel()
        finished.add_done_callback(_retrieved)  # its cancellation is not an error to log
        raise
    finally:
        kill_group(process)
    if timed_out:
        done, _ = await asyncio.wait([finished], timeout=_AFTER_KILL_SECONDS)
        if not done:
            logger.warning("A killed command's output pipes stayed open; its output is cut.")
            finished.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await finished
    return ProcessOutput(
        stdout=out.text(),
        stderr=err.text(),
        returncode=process.returncode,
        timed_out=timed_out,
    )


def _retrieved(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()
