"""Synchronous forms of the in-memory store's methods (google-adk's ``*_sync`` methods).

google-adk's in-memory session service also offers ``create_session_sync``,
``get_session_sync``, ``list_sessions_sync`` and ``delete_session_sync`` for code that is not
async (scripts, notebooks, tests building a session before a run), and deprecates them. They
run the async method to its end: on this thread when no event loop runs here, otherwise on a
short-lived worker thread (the calling loop is blocked meanwhile, as any blocking call blocks
it: prefer the async methods in async code).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["run_to_end"]

_T = TypeVar("_T")
_logger = logging.getLogger("adk_runtime.sessions")


def run_to_end(name: str, call: Coroutine[Any, Any, _T]) -> _T:
    """Run ``call`` (the async form of the sync method ``name``) and return its result."""
    _logger.warning("%s is deprecated: await the async method instead.", name)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(call)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as worker:
        return worker.submit(asyncio.run, call).result()
