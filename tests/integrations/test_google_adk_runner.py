"""google-adk's own Runner and LlmAgent on adk_runtime's durable stores, via the adapter."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from google.adk.errors import StaleSessionError as GoogleStale
from google.adk.events import Event as GoogleEvent
from google.adk.runners import Runner

from adk_runtime import errors
from adk_runtime.integrations.google_adk import DurableSessionService
from tests.integrations.adk_agent import root_agent
from tests.integrations.support import APP, adapters, message, store_uri
from tests.stores import durable_params

pytestmark = pytest.mark.parametrize("backend", durable_params())


async def _turn(runner: Runner, session_id: str, text: str, user: str = "u") -> list[GoogleEvent]:
    return [
        event
        async for event in runner.run_async(
            user_id=user, session_id=session_id, new_message=message(text)
        )
    ]


def _dump(events: list[GoogleEvent]) -> list[dict[str, Any]]:
    return [event.model_dump(mode="json") for event in events]


async def test_runner_state_scopes_temp_and_artifacts(backend: str, tmp_path: Path) -> None:
    async with store_uri(backend, tmp_path) as uri, adapters(uri, tmp_path) as (sessions, arts):
        runner = Runner(
            app_name=APP, agent=root_agent, session_service=sessions, artifact_service=arts
        )
        first = await sessions.create_session(app_name=APP, user_id="u", state={"topic": "fruit"})
        yielded = await _turn(runner, first.id, "remember apples")
        responses = [e for e in yielded if e.get_function_responses()]
        assert responses[0].get_function_responses()[0].response == {
            "stored": "apples",
            "temp": "hello",  # the temp: key the before-agent callback set, seen by the tool
            "version": 0,
        }
        assert yielded[-1].content is not None
        assert yielded[-1].content.parts is not None
        assert yielded[-1].content.parts[0].text == "stored apples"

        async with adapters(uri, tmp_path) as (other, other_arts):  # a second replica's view
            stored = await other.get_session(app_name=APP, user_id="u", session_id=first.id)
            assert stored is not None
            assert stored.state == {
                "topic": "fruit",
                "notes": ["apples"],
                "user:last": "apples",
                "app:count": 1,
            }
            # Everything the Runner yielded is stored, field for field; no temp: key anywhere.
            assert _dump(stored.events[1:]) == _dump(yielded)
            assert all(
                not k.startswith("temp:") for e in stored.events for k in e.actions.state_delta
            )
            part = await other_arts.load_artifact(
                app_name=APP, user_id="u", session_id=first.id, filename="note.txt"
            )
            assert part is not None
            assert part.inline_data is not None
            assert part.inline_data.data == b"apples"

            # app: and user: scopes reach the user's next session; app: reaches other users.
            second = await other.create_session(app_name=APP, user_id="u")
            assert second.state == {"user:last": "apples", "app:count": 1}
            stranger = await other.create_session(app_name=APP, user_id="v")
            assert stranger.state == {"app:count": 1}

        # The next turn sees the whole history (1 user + call + response + reply + 1 user).
        reply = await _turn(runner, first.id, "hello")
        assert reply[-1].content is not None
        assert reply[-1].content.parts is not None
        assert reply[-1].content.parts[0].text == "echo: hello (history 5)"


async def test_stale_session_object_is_refused_and_writes_nothing(
    backend: str, tmp_path: Path
) -> None:
    async with store_uri(backend, tmp_path) as uri, adapters(uri, tmp_path) as (sessions, _):
        created = await sessions.create_session(app_name=APP, user_id="u", session_id="s1")
        mine = await sessions.get_session(app_name=APP, user_id="u", session_id="s1")
        theirs = await sessions.get_session(app_name=APP, user_id="u", session_id="s1")
        assert mine is not None
        assert theirs is not None
        await sessions.append_event(
            theirs, GoogleEvent(author="user", actions={"state_delta": {"k": 1}})
        )
        with pytest.raises(GoogleStale) as caught:
            await sessions.append_event(
                mine, GoogleEvent(author="user", actions={"state_delta": {"k": 2}})
            )
        assert isinstance(caught.value, errors.StaleSessionError)  # ours too
        stored = await sessions.get_session(app_name=APP, user_id="u", session_id=created.id)
        assert stored is not None
        assert stored.state == {"k": 1}
        assert len(stored.events) == 1
        assert mine.state == {}
        assert mine.events == []

        # A session object google-adk never read from the store cannot write either.
        with pytest.raises(GoogleStale, match="not read through DurableSessionService"):
            await sessions.append_event(
                type(created)(id="s1", app_name=APP, user_id="u"), GoogleEvent(author="user")
            )


async def test_list_delete_and_errors_are_google_adks(backend: str, tmp_path: Path) -> None:
    from google.adk.errors.already_exists_error import AlreadyExistsError

    async with store_uri(backend, tmp_path) as uri:
        sessions = DurableSessionService(uri)
        try:
            for sid in ("a", "b", "c"):
                session = await sessions.create_session(app_name=APP, user_id="u", session_id=sid)
                await sessions.append_event(session, GoogleEvent(author="user"))
            with pytest.raises(AlreadyExistsError):
                await sessions.create_session(app_name=APP, user_id="u", session_id="a")
            listed = await sessions.list_sessions(app_name=APP, user_id="u")
            assert [s.id for s in listed.sessions] == ["a", "b", "c"]  # oldest update first
            assert all(s.events == [] for s in listed.sessions)
            await sessions.delete_session(app_name=APP, user_id="u", session_id="b")
            assert await sessions.get_session(app_name=APP, user_id="u", session_id="b") is None
            listed = await sessions.list_sessions(app_name=APP)
            assert [s.id for s in listed.sessions] == ["a", "c"]
        finally:
            await sessions.close()
