"""An LlmAgent with a scripted model and one tool, for the telemetry server tests."""

from __future__ import annotations

from adk_runtime.agents import LlmAgent
from adk_runtime.models import LlmRequest
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.testing.scripted_model import Reply


def lookup(city: str) -> str:
    """Look up the weather."""
    return f"sunny in {city}"


def _reply(request: LlmRequest) -> Reply:
    last = request.contents[-1].parts or []
    if any(part.function_response is not None for part in last):
        return "done"
    return function_call("lookup", {"city": "Paris"})


root_agent = LlmAgent(name="weather", model=ScriptedModel(handler=_reply), tools=[lookup])
