"""An agent for the durable-execution CLI and HTTP tests, and a way to leave it interrupted.

``root_agent`` (app ``calc``) is the crash suite's three-step tool user
(:mod:`tests.reliability.resumable`). :func:`leave_interrupted` does what a turn does before
its process fails: claims the session recording its invocation, commits the user's message and
the model's first function call, and releases the claim without finishing: the invocation is
open, status ``failed``. With ``lease_seconds`` it does not release: what a process killed
mid-tool (``kill -9``) leaves, the invocation held until the lease runs out.
"""

from __future__ import annotations

from google.genai import types

from adk_runtime.events import Event
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing.scripted_model import function_call
from tests.reliability.resumable import build

APP = "calc"
root_agent = build("llm", None, simulate=False)


async def leave_interrupted(
    service: BaseSessionService,
    user_id: str,
    session_id: str,
    invocation_id: str,
    lease_seconds: float | None = None,
) -> None:
    """Create the session and leave ``invocation_id`` interrupted half-way on it.

    With ``lease_seconds`` the claim is never released (its holder died): the invocation
    stays held, ``running``, for that long.
    """
    await service.create_session(app_name=APP, user_id=user_id, session_id=session_id)
    key = (APP, user_id, session_id)
    attempt = await service._try_claim(key, lease_seconds or 20.0, invocation_id)
    assert attempt.token is not None
    session = await service.get_session(app_name=APP, user_id=user_id, session_id=session_id)
    assert session is not None
    session._fence = attempt.token
    message = types.Content(role="user", parts=[types.Part(text="go")])
    await service.append_event(
        session, Event(invocation_id=invocation_id, author="user", content=message)
    )
    call = types.Content(role="model", parts=[function_call("add", {"i": 1}, id="calc-0-c1")])
    await service.append_event(
        session, Event(invocation_id=invocation_id, author="calc", content=call)
    )
    if lease_seconds is None:
        await service._release_claim(key, attempt.token)


def final_text(session: object) -> str:
    """The text of the session's last event."""
    events = getattr(session, "events", [])
    content = events[-1].content if events else None
    return "".join(part.text or "" for part in (content.parts or [])) if content else ""
