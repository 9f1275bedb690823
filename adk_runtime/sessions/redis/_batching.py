"""Scripts called at the same moment share one round trip (automatic pipelining).

On one Redis server every operation of the store is one ``EVALSHA``. Sent one by one, each
costs the client a connection checkout, a ``send`` system call and a wake-up to read the
reply; with many conversations at once that client CPU, not Redis, sets the throughput (it
levelled off after 16 conversations and fell by 8% at 256). :class:`ScriptBatcher` keeps a
few *lanes* (connections in use at once, :data:`LANES` at most):

- A call that finds a lane free and nobody waiting is sent at once, alone: one conversation
  pays nothing for batching.
- Calls that arrive while every lane is busy wait in line; the next free lane sends the
  first :data:`MAX_BATCH` of them as one pipeline (one write, one read; not a transaction:
  each script stays atomic on its own and gets its own reply or error).

A call's arguments are encoded (to bytes) before it joins the line, in its caller's task: an
argument redis-py cannot encode fails that call alone, never the pipeline it would have shared.
Every call is still one round trip, and first come, first served. A caller cancelled while
its call waits is dropped from the line (nothing is sent); once sent, a call runs whether or
not its caller still waits, as a single command would. When the connection fails under a
batch, every call of it gets that error (the service translates it), as each would alone;
redis-py's retry of a dropped connection re-sends the pipeline, which is safe for the same
reason it is for one command (appends are idempotent by event id, the rest are
compare-and-set or idempotent). A server that lost its scripts (restart, ``SCRIPT FLUSH``)
answers ``NOSCRIPT``: the script is loaded and those calls are sent once more.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
from collections.abc import Sequence
from typing import Any

from redis import exceptions as redis_errors
from redis.commands.core import AsyncScript

__all__ = ["LANES", "MAX_BATCH", "ScriptBatcher"]

LANES = 4
"""Batches in flight at once (each on a connection of its own), at most.

Measured on the workload of ``python -m bench concurrency`` (2 vCPUs, Redis on loopback, two
runs each): 4 lanes rose more clearly from 16 to 64 conversations than 8 (1.13-1.17x against
1.03-1.09x), the same elsewhere; a lone call never waits for a lane either way."""

MAX_BATCH = 64
"""Calls sent in one pipeline, at most."""


@dataclasses.dataclass(eq=False)
class _Call:
    script: AsyncScript
    keys: Sequence[str]
    args: Sequence[Any]
    reply: asyncio.Future[Any]

    def command(self) -> tuple[Any, ...]:
        return ("EVALSHA", self.script.sha, len(self.keys), *self.keys, *self.args)


class ScriptBatcher:
    """Runs scripts on one Redis server, batching the calls that would otherwise wait.

    Belongs to one event loop (the service makes a new one when its loop changes).
    """

    def __init__(self, client: Any, lanes: int = LANES, max_batch: int = MAX_BATCH) -> None:
        """Run scripts through ``client`` (a ``redis.asyncio.Redis``) on ``lanes`` lanes."""
        self._client = client
        self._encoder = client.get_encoder()
        self._lanes = lanes
        self._max_batch = max_batch
        self._busy = 0
        self._waiting: collections.deque[_Call] = collections.deque()
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def waiting(self) -> int:
        """Calls waiting for a lane now."""
        return len(self._waiting)

    async def call(self, script: AsyncScript, keys: Sequence[str], args: Sequence[Any]) -> Any:
        """Run ``script`` with ``keys`` and ``args``; return its reply (or raise its error)."""
        if self._busy < self._lanes and not self._waiting:
            self._busy += 1
            try:
                return await script(keys, args)
            finally:
                self._busy -= 1
                self._start_lanes()
        # Encoded here: what cannot be encoded fails this call, not the batch it would join.
        encode = self._encoder.encode
        encoded_keys, encoded_args = [encode(k) for k in keys], [encode(a) for a in args]
        reply: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting.append(_Call(script, encoded_keys, encoded_args, reply))
        self._start_lanes()
        return await reply

    def _start_lanes(self) -> None:
        while self._waiting and self._busy < self._lanes:
            self._busy += 1
            task = asyncio.get_running_loop().create_task(self._lane())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _lane(self) -> None:
        try:
            while self._waiting:
                batch: list[_Call] = []
                while self._waiting and len(batch) < self._max_batch:
                    call = self._waiting.popleft()
                    if not call.reply.done():  # a cancelled caller's call is never sent
                        batch.append(call)
                if batch:
                    await self._send(batch)
        finally:
            self._busy -= 1

    async def _send(self, batch: list[_Call]) -> None:
        try:
            replies = await self._replies(batch)
        except asyncio.CancelledError:
            for call in batch:
                call.reply.cancel()
            raise
        except Exception as error:  # the connection failed: every call of the batch fails
            replies = [_copy(error) for _ in batch]
        for call, reply in zip(batch, replies, strict=True):
            if call.reply.done():
                continue
            if isinstance(reply, Exception):
                call.reply.set_exception(reply)
            else:
                call.reply.set_result(reply)

    async def _replies(self, batch: list[_Call]) -> list[Any]:
        """Each call's reply or error; calls answered ``NOSCRIPT`` run again once loaded."""
        replies = await self._pipeline(batch)
        lost = [c for c, r in zip(batch, replies, strict=True) if _no_script(r)]
        if not lost:
            return replies
        for script in {id(c.script): c.script for c in lost}.values():
            await self._client.script_load(script.script)
        again = dict(zip(map(id, lost), await self._pipeline(lost), strict=True))
        return [again.get(id(c), r) for c, r in zip(batch, replies, strict=True)]

    async def _pipeline(self, batch: list[_Call]) -> list[Any]:
        if len(batch) == 1:  # one call: a plain command (a pipeline costs more)
            try:
                return [await self._client.execute_command(*batch[0].command())]
            except redis_errors.ResponseError as error:
                return [error]
        pipe = self._client.pipeline(transaction=False)
        for call in batch:
            pipe.execute_command(*call.command())
        replies: list[Any] = await pipe.execute(raise_on_error=False)
        return replies


def _no_script(reply: Any) -> bool:
    return isinstance(reply, redis_errors.NoScriptError)


def _copy(error: Exception) -> Exception:
    """A fresh exception of the same kind and traceback for each caller.

    One instance raised in many tasks would collect all their tracebacks.
    """
    try:
        copy = type(error)(*error.args)
    except Exception:  # an exception class with an unusual constructor
        return error
    return copy.with_traceback(error.__traceback__)
