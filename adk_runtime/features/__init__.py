"""Feature switches (``google.adk.features`` → here).

What each switch does here is in :mod:`adk_runtime.features._feature_registry`.
"""

from __future__ import annotations

from adk_runtime.features._feature_registry import (
    FeatureName,
    is_feature_enabled,
    override_feature_enabled,
)

__all__ = ["FeatureName", "is_feature_enabled", "override_feature_enabled"]
