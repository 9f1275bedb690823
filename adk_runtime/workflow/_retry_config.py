"""``RetryConfig``: when and how often a failed node runs again."""

from __future__ import annotations

import random

from pydantic import BaseModel, ConfigDict, Field, field_validator

from adk_runtime.workflow._errors import WorkflowConfigurationError

__all__ = ["RetryConfig"]

_DEFAULT_ATTEMPTS = 5
_DEFAULT_INITIAL_DELAY = 1.0
_DEFAULT_MAX_DELAY = 60.0
_DEFAULT_BACKOFF = 2.0
_DEFAULT_JITTER = 1.0


class RetryConfig(BaseModel):
    """How a failed node is retried (google-adk's fields and defaults).

    Attributes:
        max_attempts: Attempts in all, the first included (0 or 1: no retry; default 5).
        initial_delay: Seconds before the first retry (default 1.0).
        max_delay: The longest wait between attempts, in seconds (default 60.0).
        backoff_factor: Each wait is this many times the one before (default 2.0).
        jitter: Each wait moves at random by up to this fraction of itself (default 1.0;
            0.0 for exact waits).
        exceptions: Only errors of these classes (or their subclasses) are retried, given
            as classes or class names; None retries every ``Exception``.
    """

    model_config = ConfigDict(extra="forbid")

    max_attempts: int | None = Field(default=None, ge=0)
    initial_delay: float | None = Field(default=None, ge=0)
    max_delay: float | None = Field(default=None, ge=0)
    backoff_factor: float | None = Field(default=None, ge=0)
    jitter: float | None = Field(default=None, ge=0)
    exceptions: list[str] | None = None

    @field_validator("exceptions", mode="before")
    @classmethod
    def _exception_names(cls, value: object) -> list[str] | None:
        if value is None:
            return None
        if not isinstance(value, list | tuple):
            raise WorkflowConfigurationError("RetryConfig.exceptions must be a list.")
        names: list[str] = []
        for item in value:
            if isinstance(item, str):
                names.append(item)
            elif isinstance(item, type) and issubclass(item, BaseException):
                names.append(item.__name__)
            else:
                raise WorkflowConfigurationError(
                    "RetryConfig.exceptions takes exception classes or their names, "
                    f"not {type(item).__name__}."
                )
        return names

    def should_retry(self, error: BaseException, attempt: int) -> bool:
        """Whether attempt ``attempt`` (1-based), which raised ``error``, gets another one."""
        attempts = _DEFAULT_ATTEMPTS if self.max_attempts is None else self.max_attempts
        if attempt >= attempts or not isinstance(error, Exception):
            return False
        if self.exceptions is None:
            return True
        names = {kind.__name__ for kind in type(error).__mro__ if kind is not object}
        return not names.isdisjoint(self.exceptions)

    def delay(self, attempt: int) -> float:
        """Seconds to wait after attempt ``attempt`` (1-based) failed."""
        initial = _DEFAULT_INITIAL_DELAY if self.initial_delay is None else self.initial_delay
        ceiling = _DEFAULT_MAX_DELAY if self.max_delay is None else self.max_delay
        backoff = _DEFAULT_BACKOFF if self.backoff_factor is None else self.backoff_factor
        jitter = _DEFAULT_JITTER if self.jitter is None else self.jitter
        delay = initial * backoff ** max(0, attempt - 1)
        if jitter > 0:
            # Cap before jittering, so the spread survives near the ceiling.
            delay = min(delay, ceiling / (1.0 + jitter))
            delay = max(0.0, delay + random.uniform(-jitter * delay, jitter * delay))
        return min(delay, ceiling)
