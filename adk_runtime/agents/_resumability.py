"""google-adk's resumability switch (``google.adk.apps.app.ResumabilityConfig``).

Defined with the agents so that an :class:`~adk_runtime.agents.InvocationContext` can carry
it; :mod:`adk_runtime.apps.app` exports it under google-adk's path.
"""

from __future__ import annotations

from pydantic import BaseModel

__all__ = ["ResumabilityConfig"]


class ResumabilityConfig(BaseModel):
    """google-adk's switch for resumable invocations, accepted for compatibility.

    adk_runtime invocations are always resumable: every event is committed before the agent
    goes on, and ``Runner.run_async(invocation_id=...)`` / ``Runner.resume_interrupted()``
    continue an interrupted invocation from its last committed event. ``is_resumable`` is
    therefore recorded but changes nothing.

    Attributes:
        is_resumable: google-adk's flag (True: resumable; adk_runtime always is).
    """

    is_resumable: bool = False
