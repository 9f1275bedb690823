"""LoggingPlugin's tool lines: a result that reports a failure is logged as one, once."""

from __future__ import annotations

from typing import Any

import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.apps import App
from adk_runtime.plugins import (
    BasePlugin,
    DebugLoggingPlugin,
    LoggingPlugin,
    ReflectAndRetryToolPlugin,
    ToolResultClassification,
)
from adk_runtime.runners import InMemoryRunner
from adk_runtime.testing import ScriptedModel, function_call

LOGGER = "adk_runtime.plugins.logging_plugin"


def lookup(city: str) -> dict[str, Any]:
    """Look up the weather."""
    if city == "Atlantis":
        raise LookupError("no such city")
    if city == "Mordor":  # what an MCP tool's error result looks like
        return {"content": [{"type": "text", "text": "dark"}], "isError": True}
    return {"weather": f"sunny in {city}"}


async def _tool_lines(
    caplog: pytest.LogCaptureFixture, city: str, plugins: list[BasePlugin]
) -> list[tuple[str, str]]:
    model = ScriptedModel(replies=[function_call("lookup", {"city": city}), "Done."])
    agent = LlmAgent(name="agent", model=model, tools=[lookup])
    runner = InMemoryRunner(app=App(name="app", root_agent=agent, plugins=plugins))
    await runner.session_service.create_session(app_name="app", user_id="u", session_id="s")
    caplog.set_level("INFO", logger=LOGGER)
    message = types.Content(role="user", parts=[types.Part(text="weather?")])
    async for _ in runner.run_async(user_id="u", session_id="s", new_message=message):
        pass
    return [
        (record.levelname, record.getMessage())
        for record in caplog.records
        if record.name == LOGGER
        and any(f"tool lookup {verb}" in record.getMessage() for verb in ("returned", "failed"))
    ]


def _stale_in_oslo(**kwargs: Any) -> ToolResultClassification | None:
    result = kwargs["result"]
    if "Oslo" in str(result.get("weather")):
        return ToolResultClassification(status="ERROR", error_message="stale forecast")
    if result.get("isError"):
        return ToolResultClassification(status="OK")
    return None


async def test_a_classifier_marks_a_result_as_a_failure(caplog: pytest.LogCaptureFixture) -> None:
    plugin = LoggingPlugin(tool_result_classifier=_stale_in_oslo)
    [(level, line)] = await _tool_lines(caplog, "Oslo", [plugin])
    assert level == "WARNING"
    assert "tool lookup failed: 'stale forecast'" in line

    caplog.clear()
    [(level, line)] = await _tool_lines(caplog, "Rome", [plugin])
    assert level == "INFO"
    assert "tool lookup returned {'weather': 'sunny in Rome'}" in line


async def test_an_mcp_error_result_is_a_failure_unless_the_classifier_says_ok(
    caplog: pytest.LogCaptureFixture,
) -> None:
    [(level, line)] = await _tool_lines(caplog, "Mordor", [LoggingPlugin()])
    assert level == "WARNING"
    assert "flagged isError" in line

    caplog.clear()
    plugin = LoggingPlugin(tool_result_classifier=_stale_in_oslo)
    [(level, line)] = await _tool_lines(caplog, "Mordor", [plugin])
    assert level == "INFO"
    assert "tool lookup returned" in line


@pytest.mark.parametrize("logging_first", [True, False])
async def test_a_raised_error_answered_by_reflect_and_retry_is_logged_once(
    caplog: pytest.LogCaptureFixture, logging_first: bool
) -> None:
    logging_plugin, retry = LoggingPlugin(), ReflectAndRetryToolPlugin()
    plugins: list[BasePlugin] = [logging_plugin, retry]
    if not logging_first:
        plugins.reverse()
    [(level, line)] = await _tool_lines(caplog, "Atlantis", plugins)
    assert level == "WARNING"
    # First, it saw the exception itself; second, the retry plugin's answer to it.
    assert ("LookupError" if logging_first else "no such city") in line
    assert logging_plugin._errored_calls == set()  # nothing kept after the invocation


async def test_a_classifier_that_raises_is_skipped_naming_only_the_tool(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(**kwargs: Any) -> None:
        raise RuntimeError(f"cannot read {kwargs['result']}")

    plugin = LoggingPlugin(tool_result_classifier=broken)
    [(level, line)] = await _tool_lines(caplog, "Mordor", [plugin])
    assert (level, "flagged isError" in line) == ("WARNING", True)  # the built-in rule
    warnings = [
        record.getMessage()
        for record in caplog.records
        if "tool_result_classifier" in record.getMessage()
    ]
    assert len(warnings) == 1
    assert "lookup" in warnings[0]
    assert "dark" not in warnings[0]


@pytest.mark.parametrize("plugin", [LoggingPlugin, DebugLoggingPlugin])
def test_a_classifier_is_checked_when_the_plugin_is_made(plugin: type[BasePlugin]) -> None:
    async def asynchronous(**kwargs: Any) -> None:
        return None

    def missing_arguments(tool: Any) -> None:
        return None

    for bad in (asynchronous, missing_arguments, "not callable"):
        with pytest.raises(ValueError, match="tool_result_classifier"):
            plugin(tool_result_classifier=bad)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="status"):
        ToolResultClassification(status="MAYBE")  # type: ignore[arg-type]
