"""Defects the model-based test (test_model_based.py) found, each as a plain regression test.

Creation state vs a later change (sessions/fork.py ``session_state_at``, used by fork and by
rewind): a key a session was created with and that a later event changed was lost when the
state "as of" an earlier point was computed (the store kept no copy of the creation state: a
fork dropped the key and a rewind set it to None). Every store now keeps the creation state
with the session; siblings (forks of forks, rewinds in forks, imports, old rows) are in
``tests/contract/test_creation_state.py``.
"""

from __future__ import annotations

from adk_runtime.events import Event, EventActions
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedAgent, text_event

APP = "findings"


async def test_a_fork_keeps_a_creation_key_changed_after_the_fork_point(
    session_service: BaseSessionService,
) -> None:
    session = await session_service.create_session(
        app_name=APP, user_id="u", session_id="s", state={"c": 1}
    )
    first = await session_service.append_event(
        session, Event(author="a", actions=EventActions(state_delta={"x": 1}))
    )
    await session_service.append_event(
        session, Event(author="a", actions=EventActions(state_delta={"c": 2}))
    )
    fork = await session_service.fork_session(
        app_name=APP, user_id="u", session_id="s", new_session_id="f", at_event_id=first.id
    )
    assert fork.state == {"c": 1, "x": 1}  # as the source was after its first event


async def test_a_rewind_restores_a_creation_key_the_rewound_turn_changed(
    session_service: BaseSessionService,
) -> None:
    await session_service.create_session(app_name=APP, user_id="u", session_id="s", state={"c": 1})
    agent = ScriptedAgent(name="a", script=[text_event("ok", state_delta={"c": 2})])
    runner = Runner(app_name=APP, agent=agent, session_service=session_service)
    events = [
        e
        async for e in runner.run_async(
            user_id="u", session_id="s", new_message=text_event("hi", role="user").content
        )
    ]
    await runner.rewind_async(
        user_id="u", session_id="s", rewind_before_invocation_id=events[0].invocation_id
    )
    session = await session_service.get_session(app_name=APP, user_id="u", session_id="s")
    assert session is not None
    assert session.state == {"c": 1}  # as before the rewound turn, not None
