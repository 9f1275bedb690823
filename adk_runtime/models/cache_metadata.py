"""``google.adk.models.cache_metadata`` → here: what a response records of its context cache.

The class is defined with the stored event models (``adk_runtime.events``), since every event
that used a cache stores it.
"""

from __future__ import annotations

from adk_runtime.events._cache_metadata import CacheMetadata

__all__ = ["CacheMetadata"]
