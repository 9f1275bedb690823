"""A Starlette app served by uvicorn on a spare loopback port, for the tests' fake APIs."""

from __future__ import annotations

import asyncio

import uvicorn
from starlette.applications import Starlette


class LoopbackServer:
    """Serves ``app`` on 127.0.0.1 (a spare port) between :meth:`start` and :meth:`stop`."""

    def __init__(self, app: Starlette, what: str) -> None:
        config = uvicorn.Config(
            app, host="127.0.0.1", port=0, log_level="warning", lifespan="off", ws="none"
        )
        self._server = uvicorn.Server(config)
        self._task: asyncio.Task[None] | None = None
        self._what = what

    @property
    def base_url(self) -> str:
        port = self._server.servers[0].sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def start(self) -> None:
        self._task = asyncio.create_task(self._server.serve())
        for _ in range(500):  # uvicorn has no "started" event to wait on
            if self._server.started:
                return
            await asyncio.sleep(0.01)
        raise RuntimeError(f"the {self._what} server did not start")

    async def stop(self) -> None:
        self._server.should_exit = True
        if self._task is not None:
            await self._task
