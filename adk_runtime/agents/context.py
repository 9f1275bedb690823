"""``google.adk.agents.context`` → here: ``Context``, the context of callbacks and tools.

google-adk 2 has one context class (``Context``) of which ``CallbackContext`` and
``ToolContext`` are aliases. Here ``ToolContext`` extends ``CallbackContext`` and carries
everything ``Context`` offers, so ``Context`` is ``ToolContext``: a value typed ``Context``
accepts what google-adk passes to callbacks and tools alike.
"""

from adk_runtime.core.tool_context import ToolContext

Context = ToolContext

__all__ = ["Context"]
