"""adk_runtime: a durable, transactional ADK Runtime.

The public API mirrors google-adk: ``google.adk.X`` → ``adk_runtime.X``.
"""

__version__ = "0.1.0"
