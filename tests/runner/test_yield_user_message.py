"""run_async(yield_user_message=True): the committed user event comes first, as in google-adk."""

from __future__ import annotations

from adk_runtime.agents import LlmAgent
from adk_runtime.events import Event
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel
from tests.llm.helpers import USER, start, stored, user


async def test_yield_user_message_yields_the_committed_message_first(
    session_service: BaseSessionService,
) -> None:
    model = ScriptedModel(replies=["hello back"])
    runner = await start(LlmAgent(name="a", model=model), session_service)

    async def turn() -> list[Event]:
        return [
            event
            async for event in runner.run_async(
                user_id=USER,
                session_id="s1",
                new_message=user("hello"),
                state_delta={"mood": "good"},
                idempotency_key="msg-1",
                yield_user_message=True,
            )
        ]

    first = await turn()
    assert [e.author for e in first] == ["user", "a"]
    assert first[0].id == "msg-1"
    assert first[0].actions.state_delta == {"mood": "good"}
    session = await stored(runner)
    assert [e.id for e in session.events] == [e.id for e in first]
    # a retry of the same message: nothing runs, the same two events come back
    again = await turn()
    assert [e.id for e in again] == [e.id for e in first]
    assert len(model.requests) == 1
