"""google-adk's resumability switch (``google.adk.apps.app.ResumabilityConfig``).

Defined with the agents so that an :class:`~adk_runtime.agents.InvocationContext` can carry
it; :mod:`adk_runtime.apps.app` exports it under google-adk's path.
"""

from __future__ import annotations

from pydantic import BaseModel

__all__ = ["ResumabilityConfig"]


class ResumabilityConfig(BaseModel):
    """google-adk's switch for resumable invocations: with it, google-adk's checkpoint events.

    With ``is_resumable`` the agents yield google-adk's resumable event stream: workflow
    agents their ``agent_state`` / ``end_of_agent`` checkpoints and every ``LlmAgent`` an
    ``end_of_agent`` event when it is done. The Runner's invocations can be resumed either
    way (``Runner.run_async(invocation_id=...)`` / ``Runner.resume_interrupted()``): their
    workflow agents record their checkpoints whatever the switch says, and every event is
    committed before the agent goes on. A context built by hand without the switch records
    none (google-adk's plain stream).

    Attributes:
        is_resumable: google-adk's flag (True: its resumable event stream).
    """

    is_resumable: bool = False
