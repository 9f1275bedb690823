"""LangChain tools as adk_runtime tools (``google.adk.integrations.langchain`` → here).

Needs the ``langchain`` extra (``pip install 'adk-runtime[langchain]'``, which brings
``langchain-core``); importing this package without it raises ``ConfigurationError``.
"""

from adk_runtime.errors import ConfigurationError

try:
    import langchain_core  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised in a subprocess without the extra
    raise ConfigurationError(
        "LangchainTool needs langchain-core, which is not installed: "
        "pip install 'adk-runtime[langchain]'."
    ) from exc

from adk_runtime.integrations.langchain.langchain_tool import LangchainTool, LangchainToolConfig

__all__ = ["LangchainTool", "LangchainToolConfig"]
