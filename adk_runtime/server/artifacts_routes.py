"""Artifact routes: list names, load (latest or a version), list versions, delete.

Artifacts are google-genai ``Part`` values, returned in camelCase JSON (``inlineData`` with
base64 ``data``). Version-specific routes come before the catch-all: names may contain ``/``.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query
from fastapi.responses import JSONResponse

from adk_runtime.server.app import AdkState, ServerState

router = APIRouter()

_BASE = "/apps/{app_name}/users/{user_id}/sessions/{session_id}/artifacts"


@router.get(_BASE)
async def list_artifact_names(
    app_name: str, user_id: str, session_id: str, state: AdkState
) -> list[str]:
    """The session's and the user's artifact names, sorted."""
    state.check_app(app_name)
    return await state.artifacts.list_artifact_keys(
        app_name=app_name, user_id=user_id, session_id=session_id
    )


@router.get(_BASE + "/{artifact_name:path}/versions")
async def list_artifact_versions(
    app_name: str,
    user_id: str,
    session_id: str,
    artifact_name: str,
    state: AdkState,
) -> list[int]:
    """The artifact's stored versions, ascending."""
    state.check_app(app_name)
    return await state.artifacts.list_versions(
        app_name=app_name, user_id=user_id, session_id=session_id, filename=artifact_name
    )


async def _load(
    state: ServerState,
    app_name: str,
    user_id: str,
    session_id: str,
    artifact_name: str,
    version: int | None,
) -> JSONResponse:
    state.check_app(app_name)
    part = await state.artifacts.load_artifact(
        app_name=app_name,
        user_id=user_id,
        session_id=session_id,
        filename=artifact_name,
        version=version,
    )
    if part is None:
        raise HTTPException(status_code=404, detail=f"Artifact {artifact_name!r} not found.")
    return JSONResponse(part.model_dump(mode="json", by_alias=True, exclude_none=True))


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
    version: int | None = None
    if version_id != "latest":
        if not version_id.isdigit():
            raise HTTPException(
                status_code=422, detail="The version must be 'latest' or a non-negative integer."
            )
        version = int(version_id)
    return await _load(state, app_name, user_id, session_id, artifact_name, version)


@router.get(_BASE + "/{artifact_name:path}")
async def load_artifact(
    app_name: str,
    user_id: str,
    session_id: str,
    artifact_name: str,
    state: AdkState,
    version: Annotated[int | None, Query(ge=0)] = None,
) -> JSONResponse:
    """The artifact's latest version, or ``?version=N``."""
    return await _load(state, app_name, user_id, session_id, artifact_name, version)


@router.delete(_BASE + "/{artifact_name:path}")
async def delete_artifact(
    app_name: str,
    user_id: str,
    session_id: str,
    artifact_name: str,
    state: AdkState,
) -> None:
    """Delete every version of the artifact."""
    state.check_app(app_name)
    await state.artifacts.delete_artifact(
        app_name=app_name, user_id=user_id, session_id=session_id, filename=artifact_name
    )
