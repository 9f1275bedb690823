"""App: an application's root agent and plugins, given to a Runner as one object."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, InstanceOf, field_validator, model_validator

from adk_runtime.agents.context_cache_config import ContextCacheConfig
from adk_runtime.agents.llm_agent import LlmAgent
from adk_runtime.core._compaction_config import EventsCompactionConfig
from adk_runtime.core._resumability import ResumabilityConfig
from adk_runtime.core.base_agent import BaseAgent
from adk_runtime.core.base_plugin import BasePlugin
from adk_runtime.errors import ConfigurationError

__all__ = [
    "App",
    "ContextCacheConfig",
    "EventsCompactionConfig",
    "ResumabilityConfig",
    "validate_app_name",
]

_APP_NAME = re.compile(r"^[a-zA-Z][a-zA-Z0-9_-]*$")


def validate_app_name(name: str) -> None:
    """Check an application name: a letter, then letters, digits, ``_`` or ``-``; not ``user``.

    Raises:
        ValueError: The name does not have that form.
    """
    if not _APP_NAME.match(name):
        raise ValueError(
            f"App name {name!r} is not valid: start it with a letter and use only letters, "
            "digits, '_' and '-'."
        )
    if name == "user":
        raise ValueError("App name 'user' is reserved for the end user's events; pick another.")


class App(BaseModel):
    """An application: its name, root agent and plugins.

    ``Runner(app=App(...), session_service=...)`` is the same as passing ``app_name``,
    ``agent`` and ``plugins`` one by one.

    Attributes:
        name: The application's name (see :func:`validate_app_name`); it keys its sessions.
        root_agent: The agent every invocation starts from; a workflow node
            (``adk_runtime.workflow``) runs as one.
        plugins: Plugins applied to every invocation, in order (names unique).
        events_compaction_config: When to summarise older events of a session for the
            model (see :class:`EventsCompactionConfig`); None: never.
        context_cache_config: Gemini context caching for every LLM agent of the app (see
            :class:`ContextCacheConfig`); None: nothing is cached.
        resumability_config: ``is_resumable=True`` gives google-adk's resumable event stream
            (its checkpoint events); the Runner's invocations resume either way.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    name: str
    root_agent: InstanceOf[BaseAgent] | None = None
    plugins: list[InstanceOf[BasePlugin]] = Field(default_factory=list)
    events_compaction_config: EventsCompactionConfig | None = None
    context_cache_config: ContextCacheConfig | None = None
    resumability_config: ResumabilityConfig | None = None

    @field_validator("root_agent", mode="before")
    @classmethod
    def _node_as_agent(cls, value: Any) -> Any:
        """A workflow node (google-adk 2's ``App(root_agent=workflow)``) runs as the root."""
        from adk_runtime.workflow._base_node import BaseNode
        from adk_runtime.workflow._root import as_agent

        if value is not None and not isinstance(value, BaseAgent | BaseNode):
            raise TypeError(  # not a ValueError: pydantic lets it through as it is
                f"root_agent must be a BaseAgent or BaseNode, not {type(value).__name__}."
            )
        return as_agent(value)

    @model_validator(mode="after")
    def _check(self) -> App:
        validate_app_name(self.name)
        if self.root_agent is None:
            raise ValueError("root_agent must be provided: an App needs a root agent.")
        names = [plugin.name for plugin in self.plugins]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise ValueError(f"Plugin names must be unique in an App; repeated: {duplicates}.")
        compaction = self.events_compaction_config
        if (
            compaction is not None
            and compaction.summarizer is None
            and not isinstance(self.root_agent, LlmAgent)
        ):
            raise ConfigurationError(
                "App.events_compaction_config has no summarizer and the root agent is not an "
                "LlmAgent, whose model would write the summaries: set "
                "EventsCompactionConfig(summarizer=LlmEventSummarizer(llm=...))."
            )
        return self
