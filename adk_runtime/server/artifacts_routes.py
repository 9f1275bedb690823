"""Artifact routes: save, list names, load (latest or a version), versions and metadata, delete.

Artifacts are google-genai ``Part`` values, returned in camelCase JSON (``inlineData`` with
base64 ``data``). Version-specific routes come before the catch-all: names may contain ``/``.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from adk_runtime.server._state import (
    AdkState,
    ArtifactKey,
    ArtifactPath,
    ServerState,
    SessionPath,
    artifact_key,
)
from adk_runtime.server.models import SaveArtifactRequest

router = APIRouter()

_BASE = "/apps/{app_name}/users/{user_id}/sessions/{session_id}/artifacts"


@router.get(_BASE)
async def list_artifact_names(key: SessionPath, state: AdkState) -> list[str]:
    """The session's and the user's artifact names, sorted."""
    state.check_app(key["app_name"])
    return await state.artifacts.list_artifact_keys(**key)


@router.post(_BASE)
async def save_artifact(
    key: SessionPath, req: SaveArtifactRequest, state: AdkState
) -> JSONResponse:
    """Save a new version of an artifact; returns its metadata."""
    state.check_app(key["app_name"])
    version = await state.artifacts.save_artifact(
        **key, filename=req.filename, artifact=req.artifact, custom_metadata=req.custom_metadata
    )
    meta = await state.artifacts.get_artifact_version(**key, filename=req.filename, version=version)
    return _found(meta, req.filename)  # None: deleted at once by another request


@router.get(_BASE + "/{artifact_name:path}/versions/metadata")
async def list_artifact_versions_metadata(key: ArtifactPath, state: AdkState) -> JSONResponse:
    """Metadata of every stored version, ascending."""
    state.check_app(key["app_name"])
    versions = await state.artifacts.list_artifact_versions(**key)
    return JSONResponse([_camel_json(v) for v in versions])


# The routes with a {version_id} name their path parameters themselves: through a
# dependency they would move after it in the OpenAPI document.
@router.get(_BASE + "/{artifact_name:path}/versions/{version_id}/metadata")
async def get_artifact_version_metadata(
    app_name: str,
    user_id: str,
    session_id: str,
    artifact_name: str,
    version_id: str,
    state: AdkState,
) -> JSONResponse:
    """Metadata of one version (``latest`` or a number)."""
    state.check_app(app_name)
    key = artifact_key(app_name, user_id, session_id, artifact_name)
    meta = await state.artifacts.get_artifact_version(**key, version=_version(version_id))
    return _found(meta, artifact_name)


def _camel_json(model: BaseModel) -> Any:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def _found(model: BaseModel | None, artifact_name: str) -> JSONResponse:
    """``model`` as camelCase JSON; 404 when the artifact (version) was not found."""
    if model is None:
        raise HTTPException(status_code=404, detail=f"Artifact {artifact_name!r} not found.")
    return JSONResponse(_camel_json(model))


def _version(version_id: str) -> int | None:
    if version_id == "latest":
        return None
    if not version_id.isdigit():
        raise HTTPException(
            status_code=422, detail="The version must be 'latest' or a non-negative integer."
        )
    return int(version_id)


@router.get(_BASE + "/{artifact_name:path}/versions")
async def list_artifact_versions(key: ArtifactPath, state: AdkState) -> list[int]:
    """The artifact's stored versions, ascending."""
    state.check_app(key["app_name"])
    return await state.artifacts.list_versions(**key)


async def _load(state: ServerState, key: ArtifactKey, version: int | None) -> JSONResponse:
    state.check_app(key["app_name"])
    part = await state.artifacts.load_artifact(**key, version=version)
    return _found(part, key["filename"])


@router.get(_BASE + "/{artifact_name:path}/versions/{version_id}")
async def load_artifact_version(
    app_name: str,
    user_id: str,
    session_id: str,
    artifact_name: str,
    version_id: str,
    state: AdkState,
) -> JSONResponse:
    """One version of the artifact (``latest`` or a number)."""
    version = _version(version_id)
    return await _load(state, artifact_key(app_name, user_id, session_id, artifact_name), version)


@router.get(_BASE + "/{artifact_name:path}")
async def load_artifact(
    key: ArtifactPath,
    state: AdkState,
    version: Annotated[int | None, Query(ge=0)] = None,
) -> JSONResponse:
    """The artifact's latest version, or ``?version=N``."""
    return await _load(state, key, version)


@router.delete(_BASE + "/{artifact_name:path}")
async def delete_artifact(key: ArtifactPath, state: AdkState) -> None:
    """Delete every version of the artifact."""
    state.check_app(key["app_name"])
    await state.artifacts.delete_artifact(**key)
