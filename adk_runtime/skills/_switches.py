"""google-adk's feature switches for skills, read whether or not ``FeatureName`` lists them.

google-adk gates two skill behaviours behind experimental switches, both off by default:
``SNAKE_CASE_SKILL_NAME`` (``snake_case`` skill names besides ``kebab-case``) and
``SKILL_LIFECYCLE`` (the ``unload_skill`` tool, and unloaded skills' instructions replaced in
later requests). When :class:`adk_runtime.features.FeatureName` has the switch, its override
and environment rules apply; otherwise only the environment does (``ADK_ENABLE_<NAME>`` /
``ADK_DISABLE_<NAME>``, as google-adk reads it).
"""

from __future__ import annotations

import os

from adk_runtime.features import FeatureName, is_feature_enabled

__all__ = ["SKILL_LIFECYCLE", "SNAKE_CASE_SKILL_NAME", "switch_enabled"]

SKILL_LIFECYCLE = "SKILL_LIFECYCLE"
SNAKE_CASE_SKILL_NAME = "SNAKE_CASE_SKILL_NAME"
_TRUE = frozenset({"1", "true", "yes", "on"})


def switch_enabled(name: str) -> bool:
    """Whether the skill switch ``name`` is on (off unless turned on)."""
    member = FeatureName.__members__.get(name)
    if member is not None:
        return is_feature_enabled(member)
    if os.environ.get(f"ADK_ENABLE_{name}", "").strip().lower() in _TRUE:
        return True
    return False
