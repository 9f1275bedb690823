"""ContextCacheConfig (public as ``adk_runtime.agents.context_cache_config``).

Defined beside the models, since ``LlmRequest.cache_config`` carries it to the model.
"""

from __future__ import annotations

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field

__all__ = ["ContextCacheConfig"]


class ContextCacheConfig(BaseModel):
    """Gemini context caching for every LLM agent of an app (``App(context_cache_config=...)``).

    With it set, the stable start of each Gemini request (system instruction, tools and the
    earlier contents) is stored once as *cached content* and later requests refer to it
    instead of resending it. A cache is made from the second invocation of a session on, once
    the previous request reached ``min_tokens`` prompt tokens and the prefix clears the
    model's own minimum (2,048 tokens for Gemini 2.5, 4,096 for Gemini 3); it is replaced
    when the prefix changes, after ``cache_intervals`` invocations or when ``ttl_seconds``
    run out. Unset (None), nothing is cached.

    Attributes:
        cache_intervals: Invocations one cache serves before it is replaced (1 to 100).
        ttl_seconds: Lifetime of a cache on the server, in seconds (above 0).
        min_tokens: Prompt tokens the previous request must have reached for a cache to be
            made (0 or more).
        create_http_options: HTTP options for the cache-creating call only (e.g.
            ``types.HttpOptions(timeout=10_000)``, in milliseconds); a create that fails
            leaves that request uncached. None: the client's own.
    """

    model_config = ConfigDict(extra="forbid")

    cache_intervals: int = Field(default=10, ge=1, le=100)
    ttl_seconds: int = Field(default=1800, gt=0)
    min_tokens: int = Field(default=0, ge=0)
    create_http_options: types.HttpOptions | None = None

    @property
    def ttl_string(self) -> str:
        """The TTL in the API's duration form, e.g. ``"1800s"``."""
        return f"{self.ttl_seconds}s"

    def __str__(self) -> str:
        """The settings, for logs (HTTP options shown only as set or not: they may hold keys)."""
        options = "set" if self.create_http_options is not None else "None"
        return (
            f"ContextCacheConfig(cache_intervals={self.cache_intervals}, "
            f"ttl={self.ttl_seconds}s, min_tokens={self.min_tokens}, "
            f"create_http_options={options})"
        )
