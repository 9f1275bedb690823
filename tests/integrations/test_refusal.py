"""google-adk objects handed to adk_runtime: one line saying what to change, no pydantic error."""

from __future__ import annotations

from pathlib import Path

import pytest
from google.adk.agents import LlmAgent as GoogleLlmAgent
from google.adk.artifacts import InMemoryArtifactService as GoogleArtifacts
from google.adk.sessions import InMemorySessionService as GoogleSessions
from google.adk.tools import FunctionTool as GoogleFunctionTool

from adk_runtime.agents import LlmAgent, SequentialAgent
from adk_runtime.errors import ConfigurationError
from adk_runtime.integrations.google_adk import DurableSessionService
from adk_runtime.runners import Runner
from adk_runtime.sessions import InMemorySessionService
from tests.serving import cli_env, run_cli

IMPORTS = "Change the 'google.adk' imports to 'adk_runtime'"


def _tool(x: int) -> int:
    """Return x."""
    return x


def _one_line(exc: BaseException) -> str:
    text = str(exc)
    assert "\n" not in text
    assert "validation error" not in text.lower()
    return text


def test_google_agent_to_our_runner() -> None:
    with pytest.raises(ConfigurationError) as caught:
        Runner(
            app_name="app",
            agent=GoogleLlmAgent(name="root", model="gemini-2.5-flash"),
            session_service=InMemorySessionService(),
        )
    text = _one_line(caught.value)
    assert text.startswith("Runner: agent is google-adk's google.adk.agents.llm_agent.LlmAgent")
    assert IMPORTS in text


@pytest.mark.parametrize(
    ("service", "adapter"),
    [
        (GoogleSessions(), "DurableSessionService"),
        (GoogleArtifacts(), "DurableArtifactService"),
    ],
)
def test_google_service_to_our_runner(service: object, adapter: str) -> None:
    kwargs: dict[str, object] = {"session_service": InMemorySessionService()}
    name = "session_service" if adapter == "DurableSessionService" else "artifact_service"
    kwargs[name] = service
    with pytest.raises(ConfigurationError) as caught:
        Runner(app_name="app", agent=LlmAgent(name="root"), **kwargs)  # type: ignore[arg-type]
    text = _one_line(caught.value)
    assert f"{name} is google-adk's" in text
    assert f"adk_runtime.integrations.google_adk.{adapter}" in text


def test_our_adapter_to_our_runner_points_at_its_service() -> None:
    adapter = DurableSessionService(service=InMemorySessionService())
    with pytest.raises(ConfigurationError, match=r"give adk_runtime its \.service"):
        Runner(app_name="app", agent=LlmAgent(name="root"), session_service=adapter)  # type: ignore[arg-type]


def test_google_pieces_inside_our_agents() -> None:
    with pytest.raises(ConfigurationError) as caught:
        LlmAgent(name="root", tools=[GoogleFunctionTool(_tool)])
    assert _one_line(caught.value).startswith("LlmAgent: tools is google-adk's")
    with pytest.raises(ConfigurationError) as caught:
        SequentialAgent(name="seq", sub_agents=[GoogleLlmAgent(name="child")])
    assert IMPORTS in _one_line(caught.value)


def test_cli_names_the_fix(tmp_path: Path) -> None:
    (tmp_path / "gagent.py").write_text(
        "from google.adk.agents import LlmAgent\nroot_agent = LlmAgent(name='root')\n"
    )
    done = run_cli(
        "chat",
        "--agent",
        "gagent:root_agent",
        "--url",
        "memory://",
        cwd=tmp_path,
        env=cli_env(PYTHONPATH=f"{tmp_path}:{Path(__file__).resolve().parents[2]}"),
    )
    assert done.returncode == 1
    error = done.stderr.strip().splitlines()[-1]
    assert error.startswith("Error: --agent 'gagent:root_agent': agent is google-adk's")
    assert IMPORTS in error
