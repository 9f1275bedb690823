"""google-adk's older path of ``LangchainTool`` (moved to ``integrations.langchain``, as there).

Importing it warns (``DeprecationWarning``); needs the ``langchain`` extra.
"""

from __future__ import annotations

import warnings

from adk_runtime.integrations.langchain import LangchainTool, LangchainToolConfig

warnings.warn(
    "adk_runtime.tools.langchain_tool has moved to adk_runtime.integrations.langchain "
    "(as google.adk.tools.langchain_tool has).",
    DeprecationWarning,
    stacklevel=2,
)

__all__ = ["LangchainTool", "LangchainToolConfig"]
