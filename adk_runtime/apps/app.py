"""App: an application's root agent and plugins, given to a Runner as one object."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, InstanceOf, field_validator, model_validator

from adk_runtime.agents._resumability import ResumabilityConfig
from adk_runtime.agents.base_agent import BaseAgent
from adk_runtime.agents.llm_agent import LlmAgent
from adk_runtime.apps.base_events_summarizer import BaseEventsSummarizer
from adk_runtime.errors import ConfigurationError
from adk_runtime.plugins.base_plugin import BasePlugin

__all__ = ["App", "EventsCompactionConfig", "ResumabilityConfig", "validate_app_name"]

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


class EventsCompactionConfig(BaseModel):
    """When to replace older events of a session by a summary in what the model sees.

    Two triggers, each a pair of settings (set both or neither; at least one pair):

    - **Sliding window** (``compaction_interval``, ``overlap_size``): once
      ``compaction_interval`` invocations have finished since the last summary, their events,
      with those of the ``overlap_size`` invocations before them, are summarised into one.
    - **Token threshold** (``token_threshold``, ``event_retention_size``): once the last model
      request of the session reached ``token_threshold`` prompt tokens (or, with no count
      reported, about that many by a four-characters-a-token estimate), everything but the
      last ``event_retention_size`` events is summarised, the previous summary included, so
      one rolling summary replaces the others. Tried first when both are set.

    Compaction runs after an invocation has yielded its last event, inside the same turn
    (the caller's iteration ends after it), and commits one compaction event (see
    :class:`~adk_runtime.events.event_actions.EventCompaction`); the summarised events stay
    stored, and every backend reads them back as before. A range is never cut between a
    function call and its response, nor through a pending confirmation; a failed summary is
    logged and the turn still succeeds.

    Attributes:
        summarizer: Writes the summaries; by default an ``LlmEventSummarizer`` on the root
            agent's model (the root agent must then be an ``LlmAgent``).
        compaction_interval: Invocations, since the last summary, that trigger a new one.
        overlap_size: Earlier invocations summarised again with them, for continuity.
        token_threshold: Prompt tokens of the last model request that trigger a summary.
        event_retention_size: Events left as they are at the end when that trigger fires.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    summarizer: InstanceOf[BaseEventsSummarizer] | None = None
    compaction_interval: int | None = Field(default=None, gt=0)
    overlap_size: int | None = Field(default=None, ge=0)
    token_threshold: int | None = Field(default=None, gt=0)
    event_retention_size: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _check_triggers(self) -> EventsCompactionConfig:
        window = (self.compaction_interval is not None, self.overlap_size is not None)
        tokens = (self.token_threshold is not None, self.event_retention_size is not None)
        if window[0] != window[1]:
            raise ValueError("Set compaction_interval and overlap_size together, or neither.")
        if tokens[0] != tokens[1]:
            raise ValueError("Set token_threshold and event_retention_size together, or neither.")
        if not (window[0] or tokens[0]):
            raise ValueError(
                "EventsCompactionConfig needs a trigger: compaction_interval with overlap_size, "
                "or token_threshold with event_retention_size."
            )
        return self


class App(BaseModel):
    """An application: its name, root agent and plugins.

    ``Runner(app=App(...), session_service=...)`` is the same as passing ``app_name``,
    ``agent`` and ``plugins`` one by one.

    Attributes:
        name: The application's name (see :func:`validate_app_name`); it keys its sessions.
        root_agent: The agent every invocation starts from.
        plugins: Plugins applied to every invocation, in order (names unique).
        events_compaction_config: When to summarise older events of a session for the
            model (see :class:`EventsCompactionConfig`); None: never.
        context_cache_config: google-adk's Gemini context caching; not implemented here, so
            setting it raises :class:`ConfigurationError`.
        resumability_config: Accepted; adk_runtime invocations are always resumable.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    name: str
    root_agent: InstanceOf[BaseAgent] | None = None
    plugins: list[InstanceOf[BasePlugin]] = Field(default_factory=list)
    events_compaction_config: EventsCompactionConfig | None = None
    context_cache_config: Any = None
    resumability_config: ResumabilityConfig | None = None

    @field_validator("context_cache_config")
    @classmethod
    def _refuse_context_cache(cls, value: Any) -> Any:
        if value is not None:
            raise ConfigurationError(
                "App.context_cache_config is not supported by adk_runtime (no Gemini context "
                "caching); leave it unset."
            )
        return value

    @model_validator(mode="after")
    def _check(self) -> App:
        validate_app_name(self.name)
        if self.root_agent is None:
            raise ValueError("An App needs a root_agent.")
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
