"""google-adk's path; the names live in :mod:`adk_runtime.core.run_config`."""

from adk_runtime.core.run_config import (
    DEFAULT_MAX_LLM_CALLS,
    RunConfig,
    StreamingMode,
    ToolThreadPoolConfig,
)

__all__ = ["DEFAULT_MAX_LLM_CALLS", "RunConfig", "StreamingMode", "ToolThreadPoolConfig"]
