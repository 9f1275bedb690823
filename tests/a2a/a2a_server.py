"""A real A2A server (a2a-sdk's JSON-RPC and agent-card routes) with a scripted executor.

What the remote agent does depends on the user's text:
- ``stream ...``: working (with a progress note), an artifact in two chunks, completed;
- ``ask``: pauses for input ("What is your name?"); the next message of that task completes
  it with ``Hi <answer>``;
- ``cut``: the first of two chunks, then the stream ends with the task still working;
- anything else: one artifact ``echo: <text>``, completed.
"""

from __future__ import annotations

from a2a.helpers.proto_helpers import new_task_from_user_message, new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCard, Part, TaskState
from starlette.applications import Starlette

from adk_runtime.a2a import _compat
from tests.loopback_server import LoopbackServer


class ScriptedExecutor(AgentExecutor):
    """Answers as the module docstring says; records every text it received."""

    def __init__(self) -> None:
        self.received: list[str] = []
        self.context_ids: list[str] = []

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.message is not None
        text = context.get_user_input()
        self.received.append(text)
        self.context_ids.append(context.context_id or "")
        task = context.current_task
        if task is None:
            task = new_task_from_user_message(context.message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        if task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED:
            await updater.add_artifact([Part(text=f"Hi {text}")], artifact_id="greeting")
            await updater.complete()
        elif text == "ask":
            question = new_text_message(
                "What is your name?", context_id=task.context_id, task_id=task.id
            )
            await updater.requires_input(question)
        elif text.startswith("stream"):
            note = new_text_message("thinking", context_id=task.context_id, task_id=task.id)
            await updater.start_work(note)
            await updater.add_artifact(
                [Part(text="Hello, ")], artifact_id="a1", append=False, last_chunk=False
            )
            await updater.add_artifact(
                [Part(text="world!")], artifact_id="a1", append=True, last_chunk=True
            )
            await updater.complete()
        elif text == "cut":
            await updater.start_work()
            await updater.add_artifact(
                [Part(text="half")], artifact_id="a1", append=False, last_chunk=False
            )
        elif text == "nul":  # a remote agent is free to send what cannot be stored here
            await updater.add_artifact([Part(text="bin\x00ary")], artifact_id="nul")
            await updater.complete()
        else:
            await updater.add_artifact([Part(text=f"echo: {text}")], artifact_id="echo")
            await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


def agent_card(base_url: str) -> AgentCard:
    return _compat.parse_agent_card(
        {
            "name": "scripted",
            "description": "A scripted remote agent",
            "version": "1.0",
            "supportedInterfaces": [
                {"url": f"{base_url}/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
            ],
            "capabilities": {"streaming": True},
            "defaultInputModes": ["text/plain"],
            "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "echo", "name": "echo", "description": "Answers", "tags": ["test"]}],
        }
    )


class A2AServer:
    """The scripted agent served on a spare loopback port."""

    def __init__(self) -> None:
        self.executor = ScriptedExecutor()
        self._app = Starlette()
        self._server = LoopbackServer(self._app, "A2A")

    @property
    def base_url(self) -> str:
        return self._server.base_url

    @property
    def card_url(self) -> str:
        return f"{self.base_url}/.well-known/agent-card.json"

    async def start(self) -> None:
        await self._server.start()
        card = agent_card(self.base_url)
        handler = DefaultRequestHandler(
            agent_executor=self.executor, task_store=InMemoryTaskStore(), agent_card=card
        )
        self._app.routes.extend(
            [*create_agent_card_routes(card), *create_jsonrpc_routes(handler, "/")]
        )

    async def stop(self) -> None:
        await self._server.stop()
