"""Which skills are active for an agent, kept in session state so that it is durable.

An agent's active skills are a list of names under ``_adk_activated_skill_<agent>`` (the key
google-adk uses, so sessions move between the two); lifecycle records (the turn an ephemeral
skill was loaded in, the digest of what was loaded) are under ``_adk_skill_meta_<agent>``.
Both are written through the tool context's state, so they ride on the function-response
event of the ``load_skill`` / ``unload_skill`` call and are committed with it: a skill loaded
in one process is still active when another process (or a new ``Runner``) resumes the
session on a durable store. Lists and dicts are always replaced, never edited in place, so
every change is in the event's ``state_delta``.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
from collections.abc import Mapping
from typing import Any, Protocol

from adk_runtime.skills import models

__all__ = [
    "SkillActivations",
    "SkillDiscoveryMode",
    "SkillLifecycleConfig",
    "SkillLifecycleMode",
    "activated_skills_state_key",
    "skill_digest",
]

_DEFAULT_MAX_ACTIVE_SKILLS = 5


class _StateView(Protocol):
    """Session state as read (a ``ReadonlyContext.state``, a ``State`` or a dict)."""

    def get(self, key: str, /) -> Any: ...


class _WritableState(_StateView, Protocol):
    """Session state that records writes (a ``ToolContext.state``, or a dict)."""

    def __setitem__(self, key: str, value: Any, /) -> None: ...


class SkillLifecycleMode(enum.Enum):
    """How long a loaded skill stays active."""

    PERSISTENT = "persistent"
    """Until it is unloaded (the default). Not counted by ``max_active_skills``."""
    BOUNDED = "bounded"
    """Like PERSISTENT, but at most ``max_active_skills`` bounded skills are active at once:
    loading one more releases the least recently loaded one (a reload counts as a use)."""
    EPHEMERAL = "ephemeral"
    """For the rest of the invocation (turn) that loaded it; released in the next one."""


class SkillDiscoveryMode(enum.Enum):
    """How the model learns which local skills exist."""

    LAZY = "lazy"
    """It calls ``list_skills`` (the default): nothing about the catalog is in the prompt."""
    EAGER = "eager"
    """The catalog is in the system instruction and ``list_skills`` is not offered."""


@dataclasses.dataclass(frozen=True)
class SkillLifecycleConfig:
    """How long a toolset's skills stay active once loaded.

    Attributes:
        enabled: False makes every skill PERSISTENT, whatever else is set.
        default_mode: The lifecycle of a skill not in ``skill_overrides``.
        max_active_skills: How many BOUNDED skills an agent may have active at once (>= 1).
        skill_overrides: A lifecycle per skill name.
        revalidate_skills: On each request, compare each active skill with the digest taken
            when it was loaded, and state the new instructions of one that changed.
    """

    enabled: bool = True
    default_mode: SkillLifecycleMode = SkillLifecycleMode.PERSISTENT
    max_active_skills: int = _DEFAULT_MAX_ACTIVE_SKILLS
    skill_overrides: dict[str, SkillLifecycleMode] = dataclasses.field(default_factory=dict)
    revalidate_skills: bool = False

    def __post_init__(self) -> None:
        if self.max_active_skills < 1:
            raise ValueError(f"max_active_skills must be at least 1, not {self.max_active_skills}.")


def activated_skills_state_key(agent_name: str) -> str:
    """The state key of ``agent_name``'s active skill names."""
    return f"_adk_activated_skill_{agent_name}"


def _records_key(agent_name: str) -> str:
    return f"_adk_skill_meta_{agent_name}"


def skill_digest(skill: models.Skill) -> str:
    """A SHA-256 over everything a skill tells the model: front matter, body, every file."""
    digest = hashlib.sha256()

    def feed(*values: str | bytes) -> None:
        for value in values:
            data = value.encode("utf-8") if isinstance(value, str) else value
            digest.update(len(data).to_bytes(8, "big"))
            digest.update(data)

    feed(skill.name, skill.instructions)
    feed(json.dumps(skill.frontmatter.model_dump(mode="json"), sort_keys=True, default=str))
    resources = skill.resources
    for name in sorted(resources.list_references()):
        feed("references", name, resources.get_reference(name) or "")
    for name in sorted(resources.list_assets()):
        feed("assets", name, resources.get_asset(name) or "")
    for name in sorted(resources.list_scripts()):
        script = resources.get_script(name)
        feed("scripts", name, script.src if script is not None else "")
    return digest.hexdigest()


class SkillActivations:
    """Reads and writes an agent's active skills in a state mapping, under one config."""

    def __init__(self, config: SkillLifecycleConfig) -> None:
        """Apply ``config`` (copied: editing it later changes nothing here)."""
        self.config = dataclasses.replace(config, skill_overrides=dict(config.skill_overrides))
        modes = {config.default_mode, *config.skill_overrides.values()}
        self._tracks_turns = config.enabled and SkillLifecycleMode.EPHEMERAL in modes
        self.revalidates = config.enabled and config.revalidate_skills

    def mode_of(self, skill_name: str) -> SkillLifecycleMode:
        """The lifecycle of ``skill_name``."""
        if not self.config.enabled:
            return SkillLifecycleMode.PERSISTENT
        return self.config.skill_overrides.get(skill_name, self.config.default_mode)

    def stored(self, state: _StateView, agent_name: str) -> list[str]:
        """The names recorded as active, expired ephemeral ones included (a fresh list)."""
        value = state.get(activated_skills_state_key(agent_name))
        return [name for name in value if isinstance(name, str)] if isinstance(value, list) else []

    def records(self, state: _StateView, agent_name: str) -> dict[str, dict[str, Any]]:
        """The lifecycle records, by skill name (a fresh copy)."""
        value = state.get(_records_key(agent_name))
        if not isinstance(value, dict):
            return {}
        return {k: dict(v) for k, v in value.items() if isinstance(v, dict)}

    def active(self, state: _StateView, agent_name: str, invocation_id: str | None) -> list[str]:
        """The active skills, oldest activation first (ephemeral ones of other turns left out)."""
        names = self.stored(state, agent_name)
        if not names or not self._tracks_turns:
            return names
        records = self.records(state, agent_name)
        return [n for n in names if not _expired(records.get(n, {}), invocation_id)]

    def activate(
        self,
        state: _WritableState,
        agent_name: str,
        skill_name: str,
        invocation_id: str | None,
        skill: models.Skill | None = None,
    ) -> list[str]:
        """Mark ``skill_name`` active; return the skills this released (expired, then evicted)."""
        stored = self.stored(state, agent_name)
        active = self.active(state, agent_name, invocation_id)
        expired = [n for n in stored if n not in active and n != skill_name]
        mode = self.mode_of(skill_name)
        record = self._record(mode, invocation_id, skill)
        if skill_name in active and mode is SkillLifecycleMode.PERSISTENT:
            if not expired and not record:
                return []
        elif skill_name in active:
            active.remove(skill_name)  # a reload is a use: the cap evicts it last
        if skill_name not in active:
            active.append(skill_name)
        evicted = self._evict(active)
        state[activated_skills_state_key(agent_name)] = active
        self._write_records(state, agent_name, active, skill_name, record)
        return expired + evicted

    def deactivate(
        self,
        state: _WritableState,
        agent_name: str,
        skill_name: str,
        invocation_id: str | None,
    ) -> bool:
        """Drop ``skill_name``; True when it was active (an expired one is cleaned up, False)."""
        stored = self.stored(state, agent_name)
        if skill_name not in stored:
            return False
        was_active = skill_name in self.active(state, agent_name, invocation_id)
        stored.remove(skill_name)
        state[activated_skills_state_key(agent_name)] = stored
        self._write_records(state, agent_name, stored, None, {})
        return was_active

    def _record(
        self, mode: SkillLifecycleMode, invocation_id: str | None, skill: models.Skill | None
    ) -> dict[str, Any]:
        record: dict[str, Any] = {}
        if mode is SkillLifecycleMode.EPHEMERAL:
            record.update(lifecycle=mode.value, activated_in=invocation_id)
        if self.revalidates and skill is not None:
            record["version_hash"] = skill_digest(skill)
        return record

    def _write_records(
        self,
        state: _WritableState,
        agent_name: str,
        active: list[str],
        skill_name: str | None,
        record: dict[str, Any],
    ) -> None:
        records = self.records(state, agent_name)
        kept = {name: value for name, value in records.items() if name in active}
        if skill_name is not None and record:
            if "version_hash" not in record and "version_hash" in kept.get(skill_name, {}):
                record["version_hash"] = kept[skill_name]["version_hash"]
            kept[skill_name] = record
        elif skill_name is not None and skill_name in kept and not self.revalidates:
            kept.pop(skill_name)
        if kept != records:
            state[_records_key(agent_name)] = kept

    def _evict(self, active: list[str]) -> list[str]:
        bounded = [n for n in active if self.mode_of(n) is SkillLifecycleMode.BOUNDED]
        overflow = len(bounded) - self.config.max_active_skills
        if overflow <= 0:
            return []
        evicted = bounded[:overflow]
        active[:] = [n for n in active if n not in evicted]
        return evicted


def _expired(record: Mapping[str, Any], invocation_id: str | None) -> bool:
    """An ephemeral record from another invocation (one without an id never expires)."""
    if record.get("lifecycle") != SkillLifecycleMode.EPHEMERAL.value:
        return False
    loaded_in = record.get("activated_in")
    return bool(loaded_in) and loaded_in != invocation_id
