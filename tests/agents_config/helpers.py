"""Module-level objects the test YAML files name by dotted path (``tests.agents_config.helpers``).

Objects that tests change or that get a parent (the model, the agent) are replaced per test
with ``monkeypatch.setattr`` so that no state leaks from one test into another.
"""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent
from typing import Any

from google.genai import types
from pydantic import BaseModel

from adk_runtime.agents import BaseAgent, CallbackContext, LlmAgent
from adk_runtime.core._tool_configs import ToolArgsConfig
from adk_runtime.core.base_agent_config import BaseAgentConfig
from adk_runtime.examples import BaseExampleProvider, Example
from adk_runtime.testing import ScriptedModel
from adk_runtime.tools import BaseTool, FunctionTool, ToolContext

HERE = "tests.agents_config.helpers"

MODEL = ScriptedModel(replies=["unused"])
AGENT = LlmAgent(name="coded_helper", instruction="I was built in Python.")
NOT_AN_AGENT = {"name": "a dict"}


def lookup_order(order_id: str, tool_context: ToolContext) -> dict[str, str]:
    """Look an order up by its id."""
    tool_context.state["looked_up"] = order_id
    return {"order_id": order_id, "status": "shipped"}


def refund(order_id: str) -> str:
    """Refund an order."""
    return f"refunded {order_id}"


REFUND_TOOL = FunctionTool(refund)


class GreetingTool(BaseTool):
    """A tool class built from YAML ``args``."""

    def __init__(self, greeting: str, times: int = 1) -> None:
        super().__init__(name="greet", description="Greets.")
        self.greeting = greeting
        self.times = times


class Settings(BaseModel):
    level: int


class SettingsTool(BaseTool):
    """A tool whose argument is a pydantic model, built from a mapping."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(name="settings", description="Has settings.")
        self.settings = settings


def make_tool(args: ToolArgsConfig) -> BaseTool:
    """A tool factory: called with the entry's ``args``."""
    extra = args.model_extra or {}
    return GreetingTool(greeting=str(extra["greeting"]), times=int(extra.get("times", 1)))


def make_nothing(args: ToolArgsConfig) -> int:
    return 42


def before_agent(callback_context: CallbackContext) -> None:
    callback_context.state["before_agent"] = True


def after_agent(callback_context: CallbackContext) -> None:
    callback_context.state["after_agent"] = True


def before_model(callback_context: CallbackContext, llm_request: Any) -> None:
    callback_context.state["before_model"] = True


def after_model(callback_context: CallbackContext, llm_response: Any) -> None:
    callback_context.state["after_model"] = True


def before_tool(tool: Any, args: dict[str, Any], tool_context: ToolContext) -> None:
    tool_context.state["before_tool"] = tool.name


def after_tool(
    tool: Any, args: dict[str, Any], tool_context: ToolContext, tool_response: Any
) -> None:
    tool_context.state["after_tool"] = tool.name


class Question(BaseModel):
    text: str


class Answer(BaseModel):
    verdict: str


class GreeterAgent(BaseAgent):
    """A custom agent class with a field of its own."""

    greeting: str = ""


class ScoredConfig(BaseAgentConfig):
    score: int


class ScoredAgent(BaseAgent):
    """A custom agent with its own config model and a ``_parse_config`` hook."""

    config_type = ScoredConfig
    score: int = 0

    @classmethod
    def _parse_config(
        cls, config: Any, config_abs_path: str, kwargs: dict[str, Any]
    ) -> dict[str, Any]:
        assert isinstance(config, ScoredConfig)
        return {**kwargs, "score": config.score * 10}


class SelfBuiltAgent(BaseAgent):
    """A custom agent that overrides ``from_config`` entirely."""

    origin: str = ""

    @classmethod
    def from_config(cls, config: Any, config_abs_path: str) -> SelfBuiltAgent:
        return cls(name=config.name, origin=Path(config_abs_path).name)


def write(directory: Path, name: str, text: str) -> Path:
    """Write a YAML file (dedented) under ``directory`` and return its path."""
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dedent(text).lstrip(), encoding="utf-8")
    return path


class FixedExamples(BaseExampleProvider):
    """An example provider a YAML ``ExampleTool`` entry names by dotted path."""

    def get_examples(self, query: str) -> list[Example]:
        return [
            Example(
                input=types.Content(role="user", parts=[types.Part(text=query)]),
                output=[types.Content(role="model", parts=[types.Part(text="Provided.")])],
            )
        ]


EXAMPLES = FixedExamples()
