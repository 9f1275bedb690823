"""``adk-runtime serve --dev-ui``: google-adk's web UI, served by adk_runtime's server.

The UI is the Angular bundle inside an installed google-adk wheel (the ``google-adk``
extra); it is found through the package's metadata, without importing google-adk. Besides
the files (under ``/dev-ui/``, open like ``/health``: they hold no data) and their runtime
config (:func:`add_dev_ui`), every server answers what the UI asks besides the
``api_server`` routes (:data:`router`, also for a UI served from elsewhere through CORS):
``/version``, ``/apps/{app}/app-info``, the agent graph, and a clear 501 for google-adk's
development routes that do not apply here (builder, eval, tests, deploy). Every API route
keeps the bearer token.
"""

from __future__ import annotations

import importlib.metadata
import platform
import secrets
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI, Request, WebSocket
from fastapi.responses import JSONResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles

from adk_runtime.agents import BaseAgent, LlmAgent
from adk_runtime.errors import ConfigurationError
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
    return {"dotSrc": _dot(state.runner.agent, None)}


@router.get("/dev/apps/{app_name}/users/{user_id}/sessions/{session_id}/events/{event_id}/graph")
async def event_graph(
    app_name: str, user_id: str, session_id: str, event_id: str, state: AdkState
) -> dict[str, str]:
    """The agent tree with the event's author highlighted."""
    from adk_runtime.server.sessions_routes import load_session

    session = await load_session(state, app_name, user_id, session_id)
    author = next((e.author for e in session.events if e.id == event_id), None)
    return {"dotSrc": _dot(state.runner.agent, author)}


def _dot(root: BaseAgent, highlight: str | None) -> str:
    lines = ["digraph agents {", '  rankdir="LR";', '  node [shape="box" style="rounded"];']
    pending = [root]
    while pending:
        agent = pending.pop(0)
        color = ' color="#0F5223" penwidth="2"' if agent.name == highlight else ""
        lines.append(f'  "{agent.name}" [label="{agent.name}"{color}];')
        for sub in agent.sub_agents:
            lines.append(f'  "{agent.name}" -> "{sub.name}";')
            pending.append(sub)
    lines.append("}")
    return "\n".join(lines)


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

    @app.get("/", include_in_schema=False)
    @app.get(OPEN_PREFIX, include_in_schema=False)
    async def to_ui() -> RedirectResponse:
        return RedirectResponse(f"{OPEN_PREFIX}/")

    app.mount(f"{OPEN_PREFIX}/", StaticFiles(directory=bundle, html=True), name="dev-ui")
