"""The memory adapter, and the adkrt+ URIs in google-adk's registry (services.py / .yaml)."""

from __future__ import annotations

from pathlib import Path

import pytest
from google.adk.cli import service_registry
from google.adk.events import Event as GoogleEvent
from google.adk.memory.base_memory_service import SearchMemoryResponse
from google.genai import types

from adk_runtime.errors import ConfigurationError
from adk_runtime.integrations.google_adk import (
    DurableArtifactService,
    DurableMemoryService,
    DurableSessionService,
    register,
)
from adk_runtime.sessions import InMemorySessionService
from adk_runtime.sessions.spanner import SpannerSessionService
from tests.integrations.support import APP, store_uri


def _said(text: str, author: str = "user") -> GoogleEvent:
    role = "user" if author == "user" else "model"
    return GoogleEvent(
        author=author, content=types.Content(role=role, parts=[types.Part(text=text)])
    )


@pytest.mark.parametrize(
    "backend",
    [
        pytest.param("sqlite", marks=pytest.mark.sqlite),
        pytest.param("postgres", marks=pytest.mark.postgres),
    ],
)
async def test_memory_adapter_remembers_a_google_session(backend: str, tmp_path: Path) -> None:
    async with store_uri(backend, tmp_path) as uri:
        sessions = DurableSessionService(uri)
        memory = DurableMemoryService(uri)
        try:
            session = await sessions.create_session(app_name=APP, user_id="u", session_id="s")
            for event in (_said("my cat is called Biscuit"), _said("noted", author="durable_app")):
                await sessions.append_event(session, event)
            await memory.add_session_to_memory(session)
            await memory.add_session_to_memory(session)  # twice: remembered once
            found = await memory.search_memory(app_name=APP, user_id="u", query="cat Biscuit")
            assert isinstance(found, SearchMemoryResponse)
            texts = [m.content.parts[0].text for m in found.memories if m.content.parts]
            assert texts == ["my cat is called Biscuit"]
            assert found.memories[0].author == "user"
            other = await memory.search_memory(app_name=APP, user_id="v", query="cat")
            assert other.memories == []
        finally:
            await sessions.close()
            await memory.close()


def test_register_adds_every_store_scheme() -> None:
    schemes = register()
    assert register() == schemes  # idempotent
    for scheme in (
        "adkrt+sqlite+aiosqlite",
        "adkrt+postgresql+asyncpg",
        "adkrt+redis",
        "adkrt+spanner",
        "adkrt+memory",
        "adkrt+file",
    ):
        assert scheme in schemes
    services = service_registry.get_service_registry()
    made = services.create_session_service("adkrt+memory://", agents_dir="/ignored")
    assert isinstance(made, DurableSessionService)
    assert isinstance(made.service, InMemorySessionService)
    artifacts = services.create_artifact_service("adkrt+memory://", agents_dir="/ignored")
    assert isinstance(artifacts, DurableArtifactService)
    database = "projects/p1/instances/i1/databases/d1"
    on_spanner = services.create_session_service(
        f"adkrt+spanner:///{database}?emulator_host=127.0.0.1:1", agents_dir="/ignored"
    )  # nothing is sent before the first call
    assert isinstance(on_spanner, DurableSessionService)
    assert isinstance(on_spanner.service, SpannerSessionService)
    assert on_spanner.service.database == database


def test_services_yaml_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """google-adk's own loader builds our classes from services.yaml with cls(uri=..., ...)."""
    monkeypatch.setattr(service_registry, "_service_registry_instance", None)
    monkeypatch.syspath_prepend(str(tmp_path))  # the loader adds the directory to sys.path
    (tmp_path / "services.yaml").write_text(
        "services:\n"
        "  - scheme: adkrt+sqlite+aiosqlite\n"
        "    type: session\n"
        "    class: adk_runtime.integrations.google_adk.DurableSessionService\n"
        "  - scheme: adkrt+sqlite+aiosqlite\n"
        "    type: memory\n"
        "    class: adk_runtime.integrations.google_adk.DurableMemoryService\n"
    )
    service_registry.load_services_module(str(tmp_path))
    uri = f"adkrt+sqlite+aiosqlite:///{tmp_path / 'app.db'}"
    services = service_registry.get_service_registry()
    assert isinstance(
        services.create_session_service(uri, agents_dir=str(tmp_path)), DurableSessionService
    )
    assert isinstance(
        services.create_memory_service(uri, agents_dir=str(tmp_path)), DurableMemoryService
    )


def test_exactly_one_of_uri_and_service() -> None:
    with pytest.raises(ConfigurationError, match=r"exactly one of uri= .* and service="):
        DurableSessionService()
    with pytest.raises(ConfigurationError, match="exactly one of uri="):
        DurableSessionService("memory://", service=InMemorySessionService())
