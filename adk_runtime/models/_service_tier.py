"""ServiceTier (public as ``adk_runtime.models.ServiceTier``): a model call's serving tier."""

from __future__ import annotations

import enum

__all__ = ["ServiceTier"]


class ServiceTier(str, enum.Enum):
    """The serving tiers of Gemini's Interactions API (``RunConfig.service_tier``).

    A ``str`` enum: a member is sent as its value, and fields typed with it take a plain
    string too, so a tier the API adds later can be named before this enum knows it.
    """

    FLEX = "flex"
    """Cheaper best-effort capacity, without a latency promise."""

    STANDARD = "standard"
    """The API's default."""

    PRIORITY = "priority"
    """Reserved capacity, for calls that must answer fast."""

    DEFERRED = "deferred"
    """Queued for off-peak capacity: the call returns once the work is accepted and the
    model polls it until it ends, so it cannot stream (``StreamingMode.SSE`` is refused)."""
