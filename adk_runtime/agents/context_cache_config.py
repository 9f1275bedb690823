"""``google.adk.agents.context_cache_config`` → here: Gemini context caching settings."""

from __future__ import annotations

from adk_runtime.models._context_cache_config import ContextCacheConfig

__all__ = ["ContextCacheConfig"]
