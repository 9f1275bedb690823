"""Waiting for a process to be gone (killed, exited or a zombie), for the tests that kill one."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path


def gone(pid: int) -> bool:
    """The process no longer runs: it does not exist, or it is a zombie nobody reaped."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        return "State:\tZ" in Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError):  # reaped between the two looks
        return True


async def wait_gone(pid: int) -> bool:
    """Whether the process is gone within about ten seconds."""
    for _ in range(200):
        if await asyncio.to_thread(gone, pid):
            return True
        await asyncio.sleep(0.05)
    return False
