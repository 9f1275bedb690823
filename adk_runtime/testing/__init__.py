"""Deterministic test doubles that implement the real interfaces."""

from adk_runtime.testing.scripted_agent import ScriptedAgent, ScriptStep, text_event
from adk_runtime.testing.scripted_model import (
    Reply,
    ScriptedModel,
    ScriptExhaustedError,
    function_call,
)

__all__ = [
    "Reply",
    "ScriptExhaustedError",
    "ScriptStep",
    "ScriptedAgent",
    "ScriptedModel",
    "function_call",
    "text_event",
]
