"""Deterministic test doubles that implement the real interfaces."""

from adk_runtime.testing.scripted_agent import ScriptedAgent, ScriptStep, text_event

__all__ = ["ScriptStep", "ScriptedAgent", "text_event"]
