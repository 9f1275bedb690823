"""RunConfig.tool_thread_pool_config: sync tools on a bounded pool of their own."""

from __future__ import annotations

import contextvars
import threading
import time

import pydantic
import pytest

from adk_runtime.agents import LlmAgent, RunConfig
from adk_runtime.core.run_config import ToolThreadPoolConfig
from adk_runtime.sessions import InMemorySessionService
from adk_runtime.testing import ScriptedModel, function_call
from tests.llm.helpers import send, start

REQUEST = contextvars.ContextVar("request", default="unset")


class Probe:
    """A blocking tool that records how many of its calls ran at once, and where."""

    def __init__(self, together: int | None = None) -> None:
        # With ``together``, each call waits (up to 10 s) until that many run at once.
        self.barrier = threading.Barrier(together) if together else None
        self.lock = threading.Lock()
        self.running = 0
        self.most = 0
        self.threads: set[str] = set()
        self.seen: set[str] = set()

    def slow(self, n: int) -> int:
        """Block for a moment."""
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
            self.threads.add(threading.current_thread().name)
            self.seen.add(REQUEST.get())
        if self.barrier is not None:
            self.barrier.wait(timeout=10)
        else:
            time.sleep(0.2)
        with self.lock:
            self.running -= 1
        return n


async def _run(run_config: RunConfig | None, together: int | None = None) -> Probe:
    probe = Probe(together)
    calls = [function_call("slow", {"n": n}) for n in range(3)]
    model = ScriptedModel(replies=[calls, "done"])
    agent = LlmAgent(name="a", model=model, tools=[probe.slow])
    runner = await start(agent, InMemorySessionService())
    REQUEST.set("the caller's")
    await send(runner, "go", run_config=run_config)
    return probe


async def test_the_pool_bounds_how_many_sync_tools_run_at_once() -> None:
    probe = await _run(RunConfig(tool_thread_pool_config=ToolThreadPoolConfig(max_workers=1)))
    assert probe.most == 1
    assert all(name.startswith("adk-runtime-tool") for name in probe.threads)
    assert probe.seen == {"the caller's"}  # context variables reach the tool, as to_thread does


async def test_without_it_sync_tools_share_asyncios_default_executor() -> None:
    probe = await _run(None, together=3)  # each waits until the three run side by side
    assert probe.most == 3
    assert not any(name.startswith("adk-runtime-tool") for name in probe.threads)
    assert probe.seen == {"the caller's"}


def test_max_workers_must_be_positive() -> None:
    with pytest.raises(pydantic.ValidationError):
        ToolThreadPoolConfig(max_workers=0)
    assert ToolThreadPoolConfig().max_workers == 4
