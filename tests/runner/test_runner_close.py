"""Runner.close under cancellation, and what a Runner refuses to be built from."""

from __future__ import annotations

import asyncio

import pytest

from adk_runtime.agents import LlmAgent, ReadonlyContext
from adk_runtime.apps import App
from adk_runtime.runners import Runner
from adk_runtime.sessions import InMemorySessionService
from adk_runtime.testing import ScriptedModel
from adk_runtime.tools import BaseTool, BaseToolset


class SlowToolset(BaseToolset):
    """A toolset whose close takes a while (a server process shutting down)."""

    def __init__(self) -> None:
        super().__init__()
        self.started = asyncio.Event()
        self.finished = False
        self.interrupted = False

    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        return []

    async def close(self) -> None:
        self.started.set()
        try:
            await asyncio.sleep(0.05)
        except asyncio.CancelledError:
            self.interrupted = True
            raise
        self.finished = True


async def test_cancelling_close_lets_the_started_closes_finish() -> None:
    first, second = SlowToolset(), SlowToolset()
    agent = LlmAgent(name="a", model=ScriptedModel(), tools=[first, second])
    runner = Runner(app_name="app", agent=agent, session_service=InMemorySessionService())
    closing = asyncio.create_task(runner.close())
    await first.started.wait()
    closing.cancel()
    with pytest.raises(asyncio.CancelledError):
        await closing
    assert closing.cancelled()
    # The close under way was not interrupted, and the next toolset was closed too.
    assert (first.finished, first.interrupted) == (True, False)
    assert (second.finished, second.interrupted) == (True, False)


def test_a_runner_needs_one_app_or_one_named_agent() -> None:
    agent = LlmAgent(name="a", model=ScriptedModel())
    app = App(name="app", root_agent=agent)
    sessions = InMemorySessionService()
    with pytest.raises(ValueError, match="One of app, agent, or node must be provided"):
        Runner(app_name="app", session_service=sessions)
    with pytest.raises(ValueError, match="app_name is required when agent is provided"):
        Runner(agent=agent, session_service=sessions)
    with pytest.raises(ValueError, match="Only one of app, agent, or node may be provided"):
        Runner(app=app, agent=agent, session_service=sessions)
    from adk_runtime.workflow import START, Workflow

    def step(node_input: str) -> str:
        return node_input

    workflow = Workflow(name="wf", edges=[(START, step)])
    for extra in ({"app": app}, {"agent": agent, "app_name": "app"}):
        with pytest.raises(ValueError, match="Only one of app, agent, or node may be provided"):
            Runner(node=workflow, session_service=sessions, **extra)  # type: ignore[arg-type]
    assert Runner(node=workflow, session_service=sessions).app_name == "wf"
