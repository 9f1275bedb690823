"""google-adk's feature switches for skills (``FeatureName``, both off by default).

``SNAKE_CASE_SKILL_NAME``: ``snake_case`` skill names besides ``kebab-case``.
``SKILL_LIFECYCLE``: the ``unload_skill`` tool, and unloaded skills' instructions replaced in
later requests. Turned on with ``override_feature_enabled`` or ``ADK_ENABLE_<NAME>``.
"""

from __future__ import annotations

from adk_runtime.features import FeatureName, is_feature_enabled

__all__ = ["SKILL_LIFECYCLE", "SNAKE_CASE_SKILL_NAME", "switch_enabled"]

SKILL_LIFECYCLE = FeatureName.SKILL_LIFECYCLE
SNAKE_CASE_SKILL_NAME = FeatureName.SNAKE_CASE_SKILL_NAME


def switch_enabled(name: FeatureName) -> bool:
    """Whether the skill switch ``name`` is on."""
    return is_feature_enabled(name)
