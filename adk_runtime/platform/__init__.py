"""Where the runtime gets the time, new ids and threads: overridable per context.

google-adk's ``google.adk.platform`` path. Tests and replays that need reproducible runs set
a provider for the current context (a :class:`contextvars.ContextVar`, so a provider set
before ``Runner.run_async`` is seen by every task of that run and by no other context):

- :mod:`.time`: ``get_time()`` gives event timestamps and artifact creation times;
- :mod:`.uuid`: ``new_uuid()`` gives event ids, invocation ids (``e-…``), runtime-minted
  function-call ids (``adk-…``) and the ids of sessions created without one;
- :mod:`.thread`: ``create_thread()`` makes the threads the runtime starts;
- ``get_random()`` (``set_random_provider``, ``reset_random_provider``): a ``random.Random``
  that code (tools, tests) can share and replace per context.

The stores keep their own clocks for what guards data (revisions, claims, idle expiry): a
provider changes what the runtime stamps on events, never how a store decides what is fresh.
"""

from __future__ import annotations

from adk_runtime.platform import thread, time, uuid
from adk_runtime.platform._random import get_random, reset_random_provider, set_random_provider

__all__ = [
    "get_random",
    "reset_random_provider",
    "set_random_provider",
    "thread",
    "time",
    "uuid",
]
