"""google-adk module paths kept for ported code: errors, features, refusing cloud stores."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import adk_runtime.sessions
from adk_runtime import errors
from adk_runtime.artifacts.gcs_artifact_service import GcsArtifactService
from adk_runtime.errors import already_exists_error, input_validation_error, session_not_found_error
from adk_runtime.features import FeatureName
from adk_runtime.features import _feature_registry as features
from adk_runtime.sessions.sqlite_session_service import SqliteSessionService, sqlite_url
from adk_runtime.sessions.vertex_ai_session_service import VertexAiSessionService


def test_error_submodules_name_the_same_classes() -> None:
    assert already_exists_error.AlreadyExistsError is errors.AlreadyExistsError
    assert input_validation_error.InputValidationError is errors.InputValidationError
    assert session_not_found_error.SessionNotFoundError is errors.SessionNotFoundError


def test_cloud_stores_refuse_to_be_built() -> None:
    with pytest.raises(errors.ConfigurationError, match="not part of adk_runtime"):
        VertexAiSessionService(project="p", location="l")
    with pytest.raises(errors.ConfigurationError, match="not part of adk_runtime"):
        GcsArtifactService("bucket")
    # importable from the package as in google-adk (whose tests import them beside ours)
    assert adk_runtime.sessions.VertexAiSessionService is VertexAiSessionService


def test_lazy_session_services_are_listed_by_dir() -> None:
    assert {"DatabaseSessionService", "RedisSessionService"} <= set(dir(adk_runtime.sessions))


def test_feature_switch_order_is_override_then_environment_then_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    name = FeatureName.IN_MEMORY_SESSION_SERVICE_LIGHT_COPY
    monkeypatch.setattr(features, "_OVERRIDES", {})
    assert features.is_feature_enabled(name) is False
    monkeypatch.setenv(f"ADK_ENABLE_{name.value}", "1")
    assert features.is_feature_enabled(name) is True
    features.override_feature_enabled(name, False)
    assert features.is_feature_enabled(name) is False
    with pytest.raises(ValueError, match="NOT_A_FEATURE"):
        features.override_feature_enabled("NOT_A_FEATURE", True)  # type: ignore[arg-type]


def test_sqlite_query_parameters_become_a_uri_sqlite_reads(tmp_path: Path) -> None:
    assert sqlite_url("a.db") == "sqlite+aiosqlite:///a.db"
    assert sqlite_url("sqlite:///a.db") == "sqlite:///a.db"
    assert sqlite_url("sqlite+aiosqlite:////d/a.db?mode=ro") == (
        "sqlite+aiosqlite:///file:/d/a.db?mode=ro&uri=true"
    )
    kept = "sqlite+aiosqlite:///file:a.db?mode=ro&uri=true"
    assert sqlite_url(kept) == kept


async def test_a_read_only_sqlite_url_is_opened_read_only(tmp_path: Path) -> None:
    path = tmp_path / "ro.db"
    sqlite3.connect(path).close()
    service = SqliteSessionService(f"sqlite+aiosqlite:///{path}?mode=ro")
    try:
        with pytest.raises(errors.ConfigurationError, match="read-only"):
            await service.create_session(app_name="app", user_id="u")
    finally:
        await service.close()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT name FROM sqlite_master").fetchall() == []
