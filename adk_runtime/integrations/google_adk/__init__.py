"""adk_runtime's durable stores inside google-adk (install the ``google-adk`` extra).

Keep google-adk's ``Runner``, ``adk web`` and ``adk api_server`` and store their sessions,
artifacts and memories in adk_runtime's stores (SQLite, PostgreSQL, Redis): atomic appends,
stale writers refused across processes, paginated listing.

- :class:`DurableSessionService`, :class:`DurableArtifactService`,
  :class:`DurableMemoryService`: google-adk service classes over an adk_runtime store, built
  from a URL (``uri=``) or around a service object (``service=``).
- :func:`register`: adds the ``adkrt+<scheme>`` URI schemes (``adkrt+sqlite+aiosqlite:///
  app.db``, ``adkrt+postgresql+asyncpg://…``, ``adkrt+redis://…``, ``adkrt+spanner:///…``) to
  google-adk's service
  registry, so ``adk web --session_service_uri adkrt+…`` uses them.

Importing this module without google-adk installed raises
:class:`~adk_runtime.errors.ConfigurationError` naming the extra.
"""

from __future__ import annotations

from adk_runtime.errors import ConfigurationError

try:
    import google.adk.sessions  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised by tests/core_install.py
    raise ConfigurationError(
        "adk_runtime.integrations.google_adk needs google-adk "
        f"({exc.name} is missing): pip install 'adk-runtime[google-adk]'"
    ) from None

from adk_runtime.integrations.google_adk._convert import (
    from_google_event,
    from_google_session,
    to_google_event,
    to_google_session,
)
from adk_runtime.integrations.google_adk._uri import SCHEME_PREFIX
from adk_runtime.integrations.google_adk.artifacts import DurableArtifactService
from adk_runtime.integrations.google_adk.memory import DurableMemoryService
from adk_runtime.integrations.google_adk.registry import register
from adk_runtime.integrations.google_adk.sessions import DurableSessionService

__all__ = [
    "SCHEME_PREFIX",
    "DurableArtifactService",
    "DurableMemoryService",
    "DurableSessionService",
    "from_google_event",
    "from_google_session",
    "register",
    "to_google_event",
    "to_google_session",
]
