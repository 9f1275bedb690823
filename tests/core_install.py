"""A SQLite-only install works: run by `make test` in a venv with no extra (.venv-core).

Checks that the core package (no 'postgres', 'redis', 'cli', 'server', 'mcp' or 'auth'
extra) runs an agent on a SQLite file, and that every missing extra is a one-line
ConfigurationError naming it.
Not a pytest module (pytest is not installed there): a plain script that exits non-zero on
the first failure.
"""

from __future__ import annotations

import asyncio
import importlib.util
import sys
import tempfile
from pathlib import Path

from google.genai import types

from adk_runtime.errors import ConfigurationError
from adk_runtime.runners import Runner
from adk_runtime.sessions import session_service_from_url
from adk_runtime.testing import ScriptedAgent, text_event


def check(condition: bool, what: str) -> None:
    if not condition:
        raise SystemExit(f"core install check failed: {what}")
    print(f"ok: {what}")


def _names_its_extra(module: str, extra: str) -> None:
    """Importing ``module`` without its extra raises ConfigurationError naming ``extra``."""
    try:
        importlib.import_module(module)
    except ConfigurationError as exc:
        check(f"adk-runtime[{extra}]" in str(exc), f"{module} names the '{extra}' extra")
    else:
        check(False, f"{module} without the '{extra}' extra raises ConfigurationError")


def check_optional_imports() -> None:
    """Modules of the extras name their extra; the core modules need none."""
    _names_its_extra("adk_runtime.integrations.google_adk", "google-adk")
    _names_its_extra("adk_runtime.integrations.langchain", "langchain")
    _names_its_extra("adk_runtime.agents.langgraph_agent", "langgraph")
    _names_its_extra("adk_runtime.tools.retrieval.llama_index_retrieval", "retrieval")
    _names_its_extra("adk_runtime.tools.retrieval.files_retrieval", "retrieval")
    from adk_runtime.tools.retrieval import BaseRetrievalTool

    check(BaseRetrievalTool.__name__ == "BaseRetrievalTool", "BaseRetrievalTool needs no extra")
    try:
        exec("from adk_runtime.tools import *", {})
    except Exception as exc:  # reported as a failed check below
        star_error: Exception | None = exc
    else:
        star_error = None
    check(star_error is None, "a star import of adk_runtime.tools needs no extra")
    try:
        from adk_runtime.tools import McpToolset  # noqa: F401
    except ConfigurationError as exc:
        check("adk-runtime[mcp]" in str(exc), "McpToolset names the 'mcp' extra")
    else:
        check(False, "McpToolset without the MCP SDK raises ConfigurationError")
    _names_its_extra("adk_runtime.auth", "auth")
    from adk_runtime.tools.load_artifacts_tool import LoadArtifactsTool

    try:
        LoadArtifactsTool(enable_spreadsheet_parsing=True)
    except ConfigurationError as exc:
        check("adk-runtime[spreadsheets]" in str(exc), "spreadsheet parsing names its extra")
    else:
        check(False, "spreadsheet parsing without openpyxl raises ConfigurationError")


async def main() -> None:
    for module in (
        "asyncpg", "redis", "click", "fastapi", "google.adk", "mcp", "authlib", "openpyxl",
    ):  # fmt: skip
        check(importlib.util.find_spec(module) is None, f"{module} is not installed")
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite+aiosqlite:///{Path(folder) / 'core.db'}"
        async with session_service_from_url(url) as service:
            agent = ScriptedAgent(name="bot", script=[text_event("hello", state_delta={"k": 1})])
            runner = Runner(app_name="core", agent=agent, session_service=service)
            await service.create_session(app_name="core", user_id="u", session_id="s")
            message = types.Content(role="user", parts=[types.Part(text="hi")])
            events = [
                e async for e in runner.run_async(user_id="u", session_id="s", new_message=message)
            ]
            stored = await service.get_session(app_name="core", user_id="u", session_id="s")
            assert stored is not None
            check(len(events) == 1 and stored.revision == 2, "an agent runs on a SQLite file")
            check(stored.state == {"k": 1}, "its state is stored")
    for url, extra in (("redis://127.0.0.1:6379/0", "redis"), ("postgresql://u@h/db", "postgres")):
        try:
            async with session_service_from_url(url) as service:
                await service.get_session(app_name="a", user_id="u", session_id="s")
        except ConfigurationError as exc:
            check(
                f"adk-runtime[{extra}]" in str(exc),
                f"{url.split(':')[0]} names the '{extra}' extra",
            )
        else:
            check(False, f"{url} without its driver raises ConfigurationError")
    check_optional_imports()
    from adk_runtime.cli import main as cli

    try:
        cli()
    except SystemExit as exc:
        check("adk-runtime[cli]" in str(exc.code), "the command line names the 'cli' extra")


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
