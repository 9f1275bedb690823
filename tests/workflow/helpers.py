"""Running workflows through a Runner on a session service, for the workflow tests."""

from __future__ import annotations

import uuid
from typing import Any

from google.genai import types

from adk_runtime.events import Event
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService
from adk_runtime.sessions.session import Session
from adk_runtime.workflow import BaseNode

USER = "u"


def message(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


def answer(request_id: str, value: Any, name: str = "adk_request_input") -> types.Content:
    response = types.FunctionResponse(id=request_id, name=name, response={"result": value})
    return types.Content(role="user", parts=[types.Part(function_response=response)])


class Run:
    """A Runner on ``service`` for ``root``, with one session."""

    def __init__(self, service: BaseSessionService, root: BaseNode) -> None:
        self.service = service
        self.root = root
        self.runner = Runner(node=root, session_service=service)
        self.app = root.name
        self.sid = uuid.uuid4().hex

    def replica(self, root: BaseNode) -> Run:
        """Another Runner (another process, as far as the store can tell) on this session."""
        other = Run(self.service, root)
        other.sid = self.sid
        return other

    async def start(self) -> Run:
        await self.service.create_session(app_name=self.app, user_id=USER, session_id=self.sid)
        return self

    async def send(self, content: types.Content | None = None, **kwargs: Any) -> list[Event]:
        return [
            event
            async for event in self.runner.run_async(
                user_id=USER, session_id=self.sid, new_message=content, **kwargs
            )
        ]

    async def session(self) -> Session:
        session = await self.service.get_session(
            app_name=self.app, user_id=USER, session_id=self.sid
        )
        assert session is not None
        return session


def outputs(events: list[Event]) -> dict[str, Any]:
    """Each node run's output, by path (stored events or yielded ones)."""
    return {e.node_info.path: e.output for e in events if e.output is not None}
