"""google-adk's path of the Runner (``google.adk.runners``); it lives in ``adk_runtime.runtime``."""

from adk_runtime.runtime.runner import InMemoryRunner, Runner, SessionBusyError

__all__ = ["InMemoryRunner", "Runner", "SessionBusyError"]
