"""The core layer: what agents, tools and plugins are built on.

The contexts (``InvocationContext``, ``ReadonlyContext``, ``CallbackContext``, ``ToolContext``),
``BaseAgent``, ``RunConfig``, ``BaseTool``, ``BaseToolset``, ``BasePlugin`` and ``PluginManager``,
the config models and the abort state. It imports only the storage and model layers below it;
agents, tools, workflow, plugins and the runtime build on it, and it never imports them.
"""
