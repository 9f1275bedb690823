"""Apps: an application's root agent and plugins as one object for the Runner."""

from adk_runtime.apps.app import App, ResumabilityConfig

__all__ = ["App", "ResumabilityConfig"]
