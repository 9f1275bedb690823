"""Every field of google-adk 2.13's Event survives a round trip through every durable store."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from google.adk.events import Event as GoogleEvent
from google.adk.events import EventActions as GoogleActions
from google.adk.events.ui_widget import UiWidget
from google.genai import types

from adk_runtime.events import Event
from adk_runtime.integrations.google_adk import (
    DurableSessionService,
    from_google_event,
    to_google_event,
)
from adk_runtime.integrations.google_adk._convert import STASH_KEY
from tests.integrations.support import APP, store_uri
from tests.stores import durable_params


def _full_event(custom_metadata: dict[str, Any] | None) -> GoogleEvent:
    """A google-adk event with every field set, the ones adk_runtime does not model too."""
    return GoogleEvent.model_validate(
        {
            "invocation_id": "inv-1",
            "author": "agent",
            "branch": "root.child",
            "content": types.Content(
                role="model",
                parts=[
                    types.Part(text="hi"),
                    types.Part.from_bytes(data=b"\x00\xffpng", mime_type="image/png"),
                ],
            ),
            "custom_metadata": custom_metadata,
            "model_version": "m-1",
            "finish_reason": types.FinishReason.STOP,
            "avg_logprobs": -0.25,
            "usage_metadata": {"prompt_token_count": 3, "total_token_count": 5},
            "cache_metadata": {
                "cache_name": "cachedContents/c-1",
                "expire_time": 1_700_000_600.5,
                "fingerprint": "0123456789abcdef",
                "invocations_used": 2,
                "contents_count": 4,
                "created_at": 1_700_000_000.25,
            },
            "turn_complete": True,
            "turn_complete_reason": "NEED_MORE_INPUT",
            "interaction_id": "ix-1",
            "environment_id": "env-1",
            "live_session_id": "live-1",
            "long_running_tool_ids": {"call-1"},
            "output": {"answer": [1, 2.5, "three", None]},
            "node_info": {"path": "root/child", "output_for": ["x"], "message_as_output": True},
            "isolation_scope": "scope-1",
            "actions": GoogleActions.model_validate(
                {
                    "state_delta": {"k": "v", "user:u": [1], "app:a": {"n": None}},
                    "artifact_delta": {"f.txt": 2},
                    "transfer_to_agent": "other",
                    "transfer_reason": "because",
                    "escalate": True,
                    "skip_summarization": True,
                    "requested_tool_confirmations": {
                        "call-1": {"hint": "sure?", "payload": {"amount": 3}}
                    },
                    "compaction": {
                        "start_timestamp": 1.0,
                        "end_timestamp": 2.0,
                        "compacted_content": {"role": "model", "parts": [{"text": "sum"}]},
                    },
                    "end_of_agent": True,
                    "agent_state": {"step": 2},
                    "rewind_before_invocation_id": "inv-0",
                    "route": ["a", 1, True],
                    "set_model_response": {"x": 1},
                }
            ),
        }
    )


@pytest.mark.parametrize("custom_metadata", [None, {}, {"mine": {"deep": [1]}}])
def test_conversion_is_lossless_in_memory(custom_metadata: dict[str, Any] | None) -> None:
    event = _full_event(custom_metadata)
    back = to_google_event(from_google_event(event))
    assert back.model_dump(mode="json") == event.model_dump(mode="json")
    plain = GoogleEvent(author="user")  # nothing google-only set: nothing stashed
    assert from_google_event(plain).custom_metadata is None


@pytest.mark.parametrize("backend", durable_params())
async def test_every_field_survives_every_store(backend: str, tmp_path: Path) -> None:
    async with store_uri(backend, tmp_path) as uri:
        sessions = DurableSessionService(uri)
        try:
            session = await sessions.create_session(app_name=APP, user_id="u", session_id="s")
            written = [_full_event(None), _full_event({"mine": 1}), GoogleEvent(author="user")]
            for event in written:
                await sessions.append_event(session, event)
            # the session object holds what a re-read returns
            stored = await sessions.get_session(app_name=APP, user_id="u", session_id="s")
            assert stored is not None
            expected = [event.model_dump(mode="json") for event in written]
            assert [event.model_dump(mode="json") for event in stored.events] == expected
            assert [event.model_dump(mode="json") for event in session.events] == expected
            assert stored.state == session.state == {"k": "v", "user:u": [1], "app:a": {"n": None}}
        finally:
            await sessions.close()


def test_importing_without_google_adk_names_the_extra() -> None:
    code = (
        "import sys; sys.modules['google.adk'] = None\nimport adk_runtime.integrations.google_adk\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("adk_runtime.errors.ConfigurationError:")
    assert "pip install 'adk-runtime[google-adk]'" in last


def test_events_stashed_by_an_earlier_release_read_back() -> None:
    """Stored events carry the earlier stash (google-only fields as JSON by section)."""
    stored = Event(
        id="e-0",
        author="agent",
        custom_metadata={
            "mine": 1,
            STASH_KEY: {
                "event": {"turn_complete_reason": "NEED_MORE_INPUT", "live_session_id": "l-1"},
                "actions": {"set_model_response": {"x": [1, "b"]}},
                "bare": False,
            },
        },
    )
    event = to_google_event(stored)
    assert event.turn_complete_reason == types.TurnCompleteReason.NEED_MORE_INPUT
    assert event.live_session_id == "l-1"
    assert event.actions.set_model_response == {"x": [1, "b"]}
    assert event.custom_metadata == {"mine": 1}
    assert to_google_event(from_google_event(event)) == event


def test_a_widget_and_a_model_response_survive_a_store_as_google_adk_objects() -> None:
    widget = UiWidget(id="w-1", provider="mcp", payload={"resource_uri": "ui://x", "b": b"\x00"})
    event = GoogleEvent(
        author="agent",
        actions=GoogleActions(render_ui_widgets=[widget], set_model_response={"ok": True}),
    )
    ours = from_google_event(event)
    assert ours.actions.render_ui_widgets is not None
    assert ours.actions.render_ui_widgets[0].payload["b"] == b"\x00"
    back = to_google_event(Event.model_validate_json(ours.model_dump_json()))
    assert back == event
    assert isinstance(back.actions.render_ui_widgets[0], UiWidget)


@pytest.mark.parametrize("backend", durable_params())
async def test_google_adk_objects_in_state_are_stored_as_their_dumps(
    backend: str, tmp_path: Path
) -> None:
    """As google-adk's database service stores them: a model or an enum as its JSON value."""
    content = types.Content(role="model", parts=[types.Part(text="hi")])
    widget = UiWidget(id="w-1", provider="mcp", payload={"b": b"\x00"})
    delta = {"content": content, "widget": widget, "reason": types.FinishReason.STOP}
    async with store_uri(backend, tmp_path) as uri:
        sessions = DurableSessionService(uri)
        try:
            session = await sessions.create_session(app_name=APP, user_id="u", session_id="s")
            await sessions.append_event(
                session, GoogleEvent(author="a", actions={"state_delta": delta})
            )
            stored = await sessions.get_session(app_name=APP, user_id="u", session_id="s")
        finally:
            await sessions.close()
    assert stored is not None
    assert stored.state == {
        "content": content.model_dump(mode="json", by_alias=True),
        "widget": {"id": "w-1", "provider": "mcp", "payload": {"b": b"\x00"}},
        "reason": "STOP",
    }
    assert types.Content.model_validate(stored.state["content"]) == content
