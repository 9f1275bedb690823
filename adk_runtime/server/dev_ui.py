"""``adk-runtime serve --dev-ui``: google-adk's web UI, served by adk_runtime's server.

The UI is the Angular bundle inside an installed google-adk wheel (the ``google-adk``
extra); it is found through the package's metadata, without importing google-adk. Besides
the files (under ``/dev-ui/``, open like ``/health``: they hold no data) and their runtime
config (:func:`add_dev_ui`), every server answers what the UI asks besides the
``api_server`` routes (:data:`router`, also for a UI served from elsewhere through CORS):
``/version``, ``/apps/{app}/app-info``, the agent graph (``build_graph``,
``build_graph_image``, see :mod:`._agent_graph`), ``/config/telemetry`` (always off),
empty answers to what the UI asks on every load and does not apply here (the builder's
file, eval sets and results), and a clear 501 for google-adk's other development routes
(builder, eval, tests, deploy). Every API route keeps the bearer token.
"""

from __future__ import annotations

import importlib.metadata
import platform
import secrets
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI, HTTPException, Request, WebSocket
from fastapi.responses import (
    FileResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel

from adk_runtime.agents import BaseAgent, LlmAgent
from adk_runtime.errors import ConfigurationError
from adk_runtime.server import _agent_graph
from adk_runtime.server._state import AdkState
from adk_runtime.version import __version__

__all__ = ["OPEN_PREFIX", "add_dev_ui", "find_web_bundle", "router"]

OPEN_PREFIX = "/dev-ui"
"""The UI's static files: served without the bearer token (they hold no data)."""

_BUNDLE = "google/adk/cli/browser"


def find_web_bundle() -> Path:
    """The directory of google-adk's web UI bundle (``index.html`` and its assets).

    Raises:
        ConfigurationError: google-adk is not installed, or its wheel has no UI bundle.
    """
    try:
        dist = importlib.metadata.distribution("google-adk")
    except importlib.metadata.PackageNotFoundError:
        raise ConfigurationError(
            "--dev-ui serves google-adk's web UI, and google-adk is not installed: "
            "pip install 'adk-runtime[google-adk]'"
        ) from None
    bundle = Path(str(dist.locate_file(_BUNDLE)))
    if not (bundle / "index.html").is_file():
        raise ConfigurationError(
            f"google-adk {dist.version} has no web UI bundle at {bundle}; reinstall it: "
            "pip install 'adk-runtime[google-adk]'"
        )
    return bundle


router = APIRouter()


@router.get("/version")
async def version() -> dict[str, str]:
    """The server's version (the UI shows it)."""
    return {
        "version": __version__,
        "language": "python",
        "language_version": platform.python_version(),
    }


@router.get("/apps/{app_name}/app-info")
async def app_info(app_name: str, state: AdkState) -> JSONResponse:
    """The served agent tree: names, descriptions, instructions, tool declarations."""
    state.check_app(app_name)
    root = state.runner.agent
    agents: dict[str, Any] = {}
    await _describe(root, agents)
    return JSONResponse(
        {
            "name": app_name,
            "rootAgentName": root.name,
            "description": root.description,
            "language": "python",
            "isComputerUse": False,
            "agents": agents,
        }
    )


async def _describe(agent: BaseAgent, into: dict[str, Any]) -> None:
    instruction: Any = getattr(agent, "instruction", "")
    if callable(instruction):
        instruction = f"<InstructionProvider: {getattr(instruction, '__name__', 'callable')}>"
    into[agent.name] = {
        "name": agent.name,
        "description": agent.description,
        "instruction": instruction,
        "tools": await _tool_declarations(agent),
        "subAgents": [sub.name for sub in agent.sub_agents],
    }
    for sub in agent.sub_agents:
        await _describe(sub, into)


async def _tool_declarations(agent: BaseAgent) -> list[dict[str, Any]]:
    if not isinstance(agent, LlmAgent):
        return []
    found: list[dict[str, Any]] = []
    for tool in await agent.canonical_tools():
        declaration = tool._get_declaration()
        if declaration is not None:
            dumped = declaration.model_dump(mode="json", by_alias=True, exclude_none=True)
            found.append({"functionDeclarations": [dumped]})
    return found


@router.get("/dev/apps/{app_name}/graph")
async def agent_graph(app_name: str, state: AdkState) -> dict[str, str]:
    """The agent tree as Graphviz DOT source."""
    state.check_app(app_name)
    return {"dotSrc": _agent_graph.dot(_agent_graph.describe(state.runner.agent))}


@router.get("/dev/apps/{app_name}/build_graph")
async def build_graph(app_name: str, state: AdkState) -> dict[str, Any]:
    """The app as google-adk's UI navigates it: ``name``, ``root_agent`` (the tree), plugins."""
    state.check_app(app_name)
    info: dict[str, Any] = {
        "name": app_name,
        "root_agent": _agent_graph.describe(state.runner.agent),
    }
    plugins = state.runner.app.plugins
    if plugins:
        info["plugins"] = [{"name": plugin.name} for plugin in plugins]
    return info


@router.get("/dev/apps/{app_name}/build_graph_image")
async def build_graph_image(
    app_name: str, state: AdkState, dark_mode: bool = False, node: str | None = None
) -> dict[str, dict[str, str]]:
    """DOT of the level at ``node`` (the root by default) and of each workflow under it.

    Keys are paths of names, as google-adk's: ``node`` (``""``: the root) for the level
    asked for, and each workflow's path under it (``inner`` under the root, ``node/inner``
    under ``node``); each value is ``{"dotSrc": ...}``. An unknown ``node`` is a 404.
    """
    state.check_app(app_name)
    described = _agent_graph.describe(state.runner.agent)
    level = _agent_graph.find(described, node or "")
    if level is None:
        raise HTTPException(status_code=404, detail=f"No node {node!r} in app {app_name!r}.")
    return {
        path: {"dotSrc": _agent_graph.dot(found, dark=dark_mode)}
        for path, found in _agent_graph.graphs(level, node or "").items()
    }


@router.get("/dev/apps/{app_name}/users/{user_id}/sessions/{session_id}/events/{event_id}/graph")
async def event_graph(
    app_name: str, user_id: str, session_id: str, event_id: str, state: AdkState
) -> dict[str, str]:
    """The agent tree with the event's author highlighted."""
    from adk_runtime.server.sessions_routes import load_session

    session = await load_session(state, app_name, user_id, session_id)
    author = next((e.author for e in session.events if e.id == event_id), None)
    described = _agent_graph.describe(state.runner.agent)
    return {"dotSrc": _agent_graph.dot(described, highlight=author)}


class TelemetryConsent(BaseModel):
    """The body of ``POST /config/telemetry``."""

    telemetry: bool


@router.get("/config/telemetry")
async def telemetry_consent() -> TelemetryConsent:
    """Usage telemetry to Google: always off (adk-runtime sends none)."""
    return TelemetryConsent(telemetry=False)


@router.post("/config/telemetry")
async def set_telemetry_consent(consent: TelemetryConsent, request: Request) -> JSONResponse:
    """Accept "off" only: adk-runtime sends no usage telemetry, so it cannot be turned on.

    As google-adk's, the route needs the ``X-ADK-Telemetry-Request: true`` header (a form
    posted by another site cannot send it).
    """
    if request.headers.get("x-adk-telemetry-request") != "true":
        detail = "Send the header X-ADK-Telemetry-Request: true."
        return JSONResponse({"detail": detail}, status_code=400)
    if consent.telemetry:
        detail = "adk-runtime sends no usage telemetry; it cannot be turned on."
        return JSONResponse({"detail": detail}, status_code=400)
    return JSONResponse({"telemetry": False})


# Out of the schema like the builder's 501 routes on the same path (other methods).
@router.get(
    "/dev/apps/{app_name}/builder", response_class=PlainTextResponse, include_in_schema=False
)
async def builder_file(app_name: str) -> str:
    """No builder YAML: empty, google-adk's answer for an agent its builder did not make."""
    return ""


_NOT_HERE = (
    "{path} is a google-adk development-server route (builder, eval, tests, deploy); "
    "adk-runtime serve does not provide it. Use 'adk web' for it."
)


LIVE_REFUSAL = "Live (bidirectional audio/video) is not supported by adk-runtime serve."


@router.websocket("/run_live")
async def run_live(websocket: WebSocket) -> None:
    """Refuse Live with a reason the UI shows (after the bearer token check, if any).

    The gate lets websockets through (it checks HTTP requests), so the token is checked here.
    """
    token: str | None = websocket.app.state.adk.auth_token
    if token is not None:
        scheme, _, given = websocket.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not secrets.compare_digest(
            given.strip().encode(), token.encode()
        ):
            await websocket.close(code=1008, reason="Missing or wrong bearer token.")
            return
    await websocket.accept()
    await websocket.close(code=1003, reason=LIVE_REFUSAL)


_DEV_ONLY_AREAS = (
    "builder",
    "eval-sets",
    "eval_sets",
    "eval-results",
    "eval_results",
    "tests",
    "deploy",
    "metrics-info",
)
"""google-adk development-server route areas under ``/dev/apps/{app}/`` (answered 501)."""


async def not_here(request: Request) -> JSONResponse:
    """501 for google-adk's development routes that adk-runtime serve does not have."""
    return JSONResponse({"detail": _NOT_HERE.format(path=request.url.path)}, status_code=501)


async def no_evals() -> list[str]:
    """No eval sets or results here (the UI lists them on every load; creating one is a 501)."""
    return []


for _listing in ("eval_sets", "eval_results"):
    router.add_api_route(
        f"/dev/apps/{{app_name}}/{_listing}", no_evals, methods=["GET"], include_in_schema=False
    )


for _area in _DEV_ONLY_AREAS:
    for _path in (
        f"/dev/apps/{{app_name}}/{_area}",
        f"/dev/apps/{{app_name}}/{_area}/{{rest:path}}",
    ):
        router.add_api_route(
            _path,
            not_here,
            methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
            include_in_schema=False,
        )


def add_dev_ui(app: FastAPI, bundle: Path) -> None:
    """Serve google-adk's web UI from ``bundle`` under ``/dev-ui/`` on ``app``."""

    @app.get(f"{OPEN_PREFIX}/assets/config/runtime-config.json", include_in_schema=False)
    async def runtime_config() -> JSONResponse:
        # "telemetry": False: adk_runtime sends nothing to Google; the UI asks nobody to.
        config = {"backendUrl": "", "telemetry": False}
        return JSONResponse(config, headers={"Cache-Control": "no-store"})

    @app.get(f"{OPEN_PREFIX}/config", include_in_schema=False)
    async def ui_config() -> dict[str, str | None]:
        return {"logo_text": None, "logo_image_url": None}

    @app.get(OPEN_PREFIX + "/prism-{theme}.css", include_in_schema=False)
    async def code_theme(theme: str) -> Response:
        # The UI links prism-light.css / prism-dark.css, which google-adk's wheel lacks.
        if theme not in ("light", "dark"):
            raise HTTPException(status_code=404)
        shipped = bundle / f"prism-{theme}.css"
        if shipped.is_file():
            return FileResponse(shipped, media_type="text/css")
        return Response("", media_type="text/css")

    @app.get("/", include_in_schema=False)
    @app.get(OPEN_PREFIX, include_in_schema=False)
    async def to_ui() -> RedirectResponse:
        return RedirectResponse(f"{OPEN_PREFIX}/")

    app.mount(f"{OPEN_PREFIX}/", StaticFiles(directory=bundle, html=True), name="dev-ui")
