"""InvocationContext: everything one ``Runner.run_async`` call shares between its agents."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from adk_runtime.agents._resumability import ResumabilityConfig
from adk_runtime.agents.run_config import RunConfig
from adk_runtime.artifacts.base import BaseArtifactService
from adk_runtime.errors import LlmCallsLimitExceededError
from adk_runtime.memory.base import BaseMemoryService
from adk_runtime.platform import uuid as platform_uuid
from adk_runtime.plugins.plugin_manager import PluginManager
from adk_runtime.sessions.base import BaseSessionService
from adk_runtime.sessions.session import Session

if TYPE_CHECKING:
    from adk_runtime.agents.base_agent import BaseAgent

__all__ = ["InvocationContext", "LlmCallsLimitExceededError", "new_invocation_context_id"]


def new_invocation_context_id() -> str:
    """Return a new invocation id (``"e-"`` and a new id from :mod:`adk_runtime.platform`)."""
    return "e-" + platform_uuid.new_uuid()


class InvocationContext(BaseModel):
    """The state of one invocation: its session, services, agent and settings.

    Attributes:
        invocation_id: ``"e-"`` + uuid4 unless the caller chose one.
        session: The session being run; its ``state`` includes dirty writes and ``temp:`` keys.
        agent: The agent currently running.
        session_service: Where events are committed.
        artifact_service: Where artifacts are saved, if configured.
        memory_service: Where memories are searched, if configured.
        user_content: The user message that started the invocation.
        branch: ``parent.child`` path isolating parallel sub-agents' histories.
        end_invocation: Set to stop the invocation after the current step.
        run_config: The settings of this invocation.
        plugin_manager: The Runner's plugins (none when the context is built by hand).
        resumability_config: The app's ``ResumabilityConfig``, if it set one: accepted as in
            google-adk; every invocation here is resumable whatever it says.
    """

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    invocation_id: str
    session: Session
    agent: BaseAgent
    session_service: BaseSessionService
    artifact_service: BaseArtifactService | None = None
    memory_service: BaseMemoryService | None = None
    user_content: types.Content | None = None
    branch: str | None = None
    end_invocation: bool = False
    run_config: RunConfig = Field(default_factory=RunConfig)
    plugin_manager: PluginManager = Field(default_factory=PluginManager)
    resumability_config: ResumabilityConfig | None = None

    # Shared by the copies made for sub-agents and branches, so the limit is per invocation.
    _llm_calls: list[int] = PrivateAttr(default_factory=lambda: [0])
    # Set when this run resumes an interrupted invocation (agents/_resume.py); shared too.
    _resume: Any = PrivateAttr(default=None)

    @property
    def is_resumable(self) -> bool:
        """Always True: any interrupted invocation can be continued here.

        Every event is committed before the agent goes on, so
        ``Runner.run_async(invocation_id=...)`` continues it whatever ``resumability_config``
        says (google-adk resumes only when it is set).
        """
        return True

    def call_attempt(self, function_call_id: str | None) -> int:
        """Which run of this function call this is: 1, or 2 when a resumption runs it again.

        A call whose request was committed without its response (the process died while it
        ran) is run again when the invocation is resumed: it may have run before, so a tool
        with side effects should use the call id as its idempotency key.
        """
        retried = getattr(self._resume, "retried_calls", ())
        return 2 if function_call_id is not None and function_call_id in retried else 1

    @property
    def app_name(self) -> str:
        """The session's app name."""
        return self.session.app_name

    @property
    def user_id(self) -> str:
        """The session's user id."""
        return self.session.user_id

    def increment_llm_call_count(self) -> None:
        """Count one model call.

        Raises:
            LlmCallsLimitExceededError: The count passed ``run_config.max_llm_calls``.
        """
        self._llm_calls[0] += 1
        limit = self.run_config.max_llm_calls
        if limit > 0 and self._llm_calls[0] > limit:
            raise LlmCallsLimitExceededError(
                f"The invocation exceeded max_llm_calls={limit}; raise RunConfig.max_llm_calls "
                "if the agent needs more model calls."
            )
