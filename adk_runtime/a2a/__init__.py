"""A2A (Agent2Agent protocol) support: the client agent and the converters it uses.

Needs the ``a2a`` extra (a2a-sdk 1.x): ``pip install 'adk-runtime[a2a]'``. Importing a
module of this package without it raises ``ConfigurationError`` naming the extra.
"""
