"""The runtime: the Runner and the event loop it drives. Start reading here.

``runner.py`` holds :class:`Runner`, the public face; ``turn.py`` the loop of one turn
(claim, load, commit the user's message, run the agent, commit and yield each event,
release), its resume and its rewind.
"""

from adk_runtime.runtime.runner import InMemoryRunner, Runner, SessionBusyError

__all__ = ["InMemoryRunner", "Runner", "SessionBusyError"]
