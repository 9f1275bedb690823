"""CacheMetadata (public as ``adk_runtime.models.cache_metadata.CacheMetadata``).

It is stored with the model-response event that used (or fingerprinted) a context cache, so
it lives beside the other stored models; ``adk_runtime.models`` re-exports it at google-adk's
path.
"""

from __future__ import annotations

from pydantic import BaseModel, Field, model_validator

from adk_runtime.events._json_fields import STORED_FORM
from adk_runtime.platform import time as platform_time

__all__ = ["CacheMetadata"]

_EXPIRE_SOON_SECONDS = 120.0


class CacheMetadata(BaseModel):
    """Which Gemini context cache a model response used, and how far it has been used.

    Two forms, as in google-adk:

    - **active**: ``cache_name``, ``expire_time`` and ``invocations_used`` are all set (and
      ``created_at``): the cached content the request referred to;
    - **fingerprint only**: those three are None: no cache yet, only the fingerprint of the
      cacheable prefix, so that the next request can tell whether the prefix held still.

    Committed with its event on every backend; the next invocation (on any replica) reads it
    back to reuse the cache. Token counts are in the event's ``usage_metadata``.

    Attributes:
        cache_name: The cached content's resource name (``cachedContents/...``).
        expire_time: When the cache expires, in seconds since the epoch.
        fingerprint: A hash of what the cache holds (model, endpoint, system instruction,
            tools, tool config and the first ``contents_count`` contents).
        invocations_used: How many invocations have used the cache so far.
        contents_count: How many leading contents the cache holds (fingerprint only: how
            many the fingerprint covers).
        created_at: When the cache was created, in seconds since the epoch.
    """

    model_config = STORED_FORM.copy()
    model_config["frozen"] = True

    cache_name: str | None = None
    # Finite only: JSON has no NaN or infinity, so such a time could not be read back.
    expire_time: float | None = Field(default=None, allow_inf_nan=False)
    fingerprint: str
    invocations_used: int | None = Field(default=None, ge=0)
    contents_count: int = Field(ge=0)
    created_at: float | None = Field(default=None, allow_inf_nan=False)

    @model_validator(mode="after")
    def _active_or_fingerprint_only(self) -> CacheMetadata:
        active = {self.cache_name is None, self.expire_time is None, self.invocations_used is None}
        if len(active) > 1:
            raise ValueError(
                "CacheMetadata needs cache_name, expire_time and invocations_used all set (an "
                "active cache) or all None (fingerprint only)."
            )
        return self

    @property
    def expire_soon(self) -> bool:
        """Whether the cache expires within two minutes (False without an active cache)."""
        if self.expire_time is None:
            return False
        return platform_time.get_time() > self.expire_time - _EXPIRE_SOON_SECONDS

    def __str__(self) -> str:
        """A short description for logs (no content; the fingerprint shortened)."""
        if self.cache_name is None:
            return (
                f"fingerprint only: {self.contents_count} contents, "
                f"fingerprint={self.fingerprint[:8]}..."
            )
        return (
            f"cache {self.cache_name.rsplit('/', 1)[-1]}: {self.invocations_used} invocations, "
            f"{self.contents_count} contents, expires at {self.expire_time}"
        )
