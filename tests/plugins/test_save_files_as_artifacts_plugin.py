"""SaveFilesAsArtifactsPlugin on every artifact store: a message's files become artifacts."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.apps import App
from adk_runtime.artifacts import BaseArtifactService, InMemoryArtifactService
from adk_runtime.events import Event
from adk_runtime.plugins.save_files_as_artifacts_plugin import SaveFilesAsArtifactsPlugin
from adk_runtime.runners import Runner
from adk_runtime.sessions import InMemorySessionService, Session
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import load_artifacts
from tests.artifacts.conftest import STORES, ArtifactStore

PDF = b"%PDF-1.7 the report"


@pytest.fixture(params=[store.param() for store in STORES])
async def artifact_service(request: pytest.FixtureRequest) -> AsyncIterator[BaseArtifactService]:
    store: ArtifactStore = request.param
    async with store.open(request) as service:
        yield service


def _file(data: bytes, mime_type: str, name: str | None = None) -> types.Part:
    return types.Part(inline_data=types.Blob(data=data, mime_type=mime_type, display_name=name))


def _message(*parts: types.Part) -> types.Content:
    return types.Content(role="user", parts=list(parts))


async def _runner(
    artifacts: BaseArtifactService | None, model: ScriptedModel, **plugin_args: bool
) -> Runner:
    tools = [] if artifacts is None else [load_artifacts]  # the tool needs a store
    agent = LlmAgent(name="agent", model=model, tools=tools)
    app = App(name="app", root_agent=agent, plugins=[SaveFilesAsArtifactsPlugin(**plugin_args)])
    sessions = InMemorySessionService()
    for session_id in ("s", "other"):
        await sessions.create_session(app_name="app", user_id="u", session_id=session_id)
    return Runner(app=app, session_service=sessions, artifact_service=artifacts)


async def _send(runner: Runner, message: types.Content, session_id: str = "s") -> list[Event]:
    run = runner.run_async(user_id="u", session_id=session_id, new_message=message)
    return [event async for event in run]


async def _session(runner: Runner, session_id: str = "s") -> Session:
    session = await runner.session_service.get_session(
        app_name="app", user_id="u", session_id=session_id
    )
    assert session is not None
    return session


def _texts(content: types.Content) -> list[str | None]:
    return [part.text for part in content.parts or []]


async def test_files_become_artifacts_and_the_model_sees_notes_instead(
    artifact_service: BaseArtifactService,
) -> None:
    model = ScriptedModel(replies=["Got both."])
    runner = await _runner(artifact_service, model)
    message = _message(
        types.Part(text="Summarise these."),
        _file(PDF, "application/pdf", "report.pdf"),
        _file(b"\x89PNG", "image/png"),
    )
    events = await _send(runner, message)
    invocation_id = events[0].invocation_id
    generated = f"artifact_{invocation_id}_2"

    sent = model.requests[0].contents[-1]
    assert all(part.inline_data is None for part in sent.parts or [])
    texts = _texts(sent)
    assert texts[0] == "Summarise these."
    assert "report.pdf" in (texts[1] or "")
    assert generated in (texts[2] or "")
    assert len(texts) == 3  # our stores' URIs are not model-readable: no file_data part

    session = await _session(runner)
    stored_message = session.events[0]
    assert stored_message.author == "user"
    assert stored_message.content is not None
    assert _texts(stored_message.content) == texts  # the bytes were never stored in the session
    [delta_event] = [e for e in session.events if e.actions.artifact_delta]
    assert delta_event.author == "agent"
    assert delta_event.actions.artifact_delta == {"report.pdf": 0, generated: 0}
    assert session.state == {}  # nothing of the plugin is left in the session state

    saved = await artifact_service.load_artifact(
        app_name="app", user_id="u", session_id="s", filename="report.pdf"
    )
    assert saved is not None
    assert saved.inline_data is not None
    assert (saved.inline_data.data, saved.inline_data.mime_type) == (PDF, "application/pdf")
    keys = await artifact_service.list_artifact_keys(app_name="app", user_id="u", session_id="s")
    assert sorted(keys) == sorted(["report.pdf", generated])


async def test_the_agent_loads_an_uploaded_file_with_load_artifacts(
    artifact_service: BaseArtifactService,
) -> None:
    replies = [
        "Stored.",
        function_call("load_artifacts", {"artifact_names": ["notes.txt"]}),
        "It says hello.",
    ]
    model = ScriptedModel(replies=replies)
    runner = await _runner(artifact_service, model)
    await _send(runner, _message(_file(b"hello there", "text/plain", "notes.txt")))
    await _send(runner, _message(types.Part(text="What does the file say?")))
    shown = [part.text for c in model.requests[2].contents for part in c.parts or []]
    assert "hello there" in shown


async def test_a_second_upload_of_a_name_is_a_new_version_and_user_files_are_shared(
    artifact_service: BaseArtifactService,
) -> None:
    model = ScriptedModel(replies=["one", "two"])
    runner = await _runner(artifact_service, model)
    await _send(runner, _message(_file(b"v0", "text/plain", "user:profile.txt")))
    events = await _send(runner, _message(_file(b"v1", "text/plain", "user:profile.txt")))
    assert [e.actions.artifact_delta for e in events if e.actions.artifact_delta] == [
        {"user:profile.txt": 1}
    ]
    other = await artifact_service.load_artifact(
        app_name="app", user_id="u", session_id="other", filename="user:profile.txt"
    )
    assert other is not None
    assert other.inline_data is not None
    assert other.inline_data.data == b"v1"


async def test_a_file_over_20_mb_is_refused_in_the_message_and_not_saved() -> None:
    artifacts = InMemoryArtifactService()
    model = ScriptedModel(replies=["too big"])
    runner = await _runner(artifacts, model)
    big = b"x" * (20 * 1024 * 1024 + 1)
    await _send(runner, _message(_file(big, "video/mp4", "clip.mp4")))
    [note] = model.requests[0].contents[-1].parts or []
    assert note.inline_data is None
    assert "clip.mp4" in (note.text or "")
    assert "20 MB" in (note.text or "")
    assert await artifacts.list_artifact_keys(app_name="app", user_id="u", session_id="s") == []


class _HttpsArtifacts(InMemoryArtifactService):
    """The in-memory store, naming its versions with URIs a model could fetch."""

    uri_scheme = "https"


@pytest.mark.parametrize("attach", [True, False])
async def test_a_model_readable_uri_is_attached_as_file_data(attach: bool) -> None:
    model = ScriptedModel(replies=["ok"])
    runner = await _runner(_HttpsArtifacts(), model, attach_file_reference=attach)
    await _send(runner, _message(_file(PDF, "application/pdf", "report.pdf")))
    parts = model.requests[0].contents[-1].parts or []
    files = [part.file_data for part in parts if part.file_data is not None]
    if not attach:
        assert files == []
        return
    [file] = files
    assert file.file_uri is not None
    assert file.file_uri.startswith("https://")
    assert file.file_uri.endswith("/report.pdf/versions/0")
    assert (file.mime_type, file.display_name) == ("application/pdf", "report.pdf")


async def test_without_an_artifact_service_the_message_is_kept(
    caplog: pytest.LogCaptureFixture,
) -> None:
    model = ScriptedModel(replies=["ok"])
    runner = await _runner(None, model)
    await _send(runner, _message(_file(PDF, "application/pdf", "report.pdf")))
    [part] = model.requests[0].contents[-1].parts or []
    assert part.inline_data is not None
    assert part.inline_data.data == PDF
    assert "no artifact service" in caplog.text


async def test_a_message_without_files_is_left_alone() -> None:
    model = ScriptedModel(replies=["ok"])
    artifacts = InMemoryArtifactService()
    runner = await _runner(artifacts, model)
    events = await _send(runner, _message(types.Part(text="just text")))
    assert _texts(model.requests[0].contents[-1]) == ["just text"]
    assert all(not e.actions.artifact_delta for e in events)
