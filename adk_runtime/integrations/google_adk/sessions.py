"""``DurableSessionService``: a google-adk session service over an adk_runtime store.

google-adk's ``Runner`` behaves on it as on its own services, only durable and race-free:
every append commits atomically (the event, the session/``app:``/``user:`` state and the
revision together); ``temp:`` keys live in the session object for the invocation and are
never stored; a session object loaded before another writer's append (another process, another
replica) is refused with google-adk's ``StaleSessionError`` and nothing is written.
"""

from __future__ import annotations

from typing import Any

from google.adk.events import Event as GoogleEvent
from google.adk.sessions import Session as GoogleSession
from google.adk.sessions.base_session_service import BaseSessionService as GoogleBase
from google.adk.sessions.base_session_service import GetSessionConfig as GoogleConfig
from google.adk.sessions.base_session_service import ListSessionsResponse as GoogleList

from adk_runtime.integrations.google_adk._adapter import DurableAdapter
from adk_runtime.integrations.google_adk._convert import (
    from_google_event,
    parse_marker,
    session_marker,
    to_google_event,
    to_google_session,
)
from adk_runtime.integrations.google_adk._errors import StaleSessionError, google_errors_of
from adk_runtime.sessions import BaseSessionService, GetSessionConfig, Session
from adk_runtime.sessions.registry import session_service_from_url

__all__ = ["DurableSessionService"]


class DurableSessionService(DurableAdapter[BaseSessionService], GoogleBase):
    """google-adk's ``BaseSessionService`` over any adk_runtime session store.

    Args:
        uri: The store: ``adkrt+sqlite+aiosqlite:///app.db``, ``adkrt+postgresql+asyncpg://…``,
            ``adkrt+redis://…``, ``adkrt+spanner:///projects/P/instances/I/databases/D`` (or
            the same URL without ``adkrt+``).
        service: An adk_runtime session service object to use instead of a URI (not closed by
            :meth:`close`).
        agents_dir: Ignored (google-adk's service registry passes it to every factory).
        **options: Passed to :func:`adk_runtime.sessions.session_service_from_url` (e.g.
            ``cache_bytes``, ``key_prefix``).
    """

    _kind = "Session"

    def _open(self, url: str, **options: Any) -> BaseSessionService:
        return session_service_from_url(url, **options)

    async def create_session(
        self,
        *,
        app_name: str,
        user_id: str,
        state: dict[str, Any] | None = None,
        session_id: str | None = None,
    ) -> GoogleSession:
        """Create a session (google-adk's ``AlreadyExistsError`` if the id is taken)."""
        with google_errors_of():
            session = await self._service.create_session(
                app_name=app_name, user_id=user_id, state=state, session_id=session_id
            )
        return to_google_session(session)

    async def get_session(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        config: GoogleConfig | None = None,
    ) -> GoogleSession | None:
        """The session with its merged state and (some of) its events, or None."""
        ours = None
        if config is not None:
            ours = GetSessionConfig(
                num_recent_events=config.num_recent_events,
                after_timestamp=config.after_timestamp,
            )
        with google_errors_of():
            session = await self._service.get_session(
                app_name=app_name, user_id=user_id, session_id=session_id, config=ours
            )
        return None if session is None else to_google_session(session)

    async def list_sessions(self, *, app_name: str, user_id: str | None = None) -> GoogleList:
        """Every session of the app (or of one user), without events, oldest update first."""
        with google_errors_of():
            page = await self._service.list_sessions(app_name=app_name, user_id=user_id)
        return GoogleList(sessions=[to_google_session(s) for s in reversed(page.sessions)])

    async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
        """Delete the session and its events (app and user state stay)."""
        with google_errors_of():
            await self._service.delete_session(
                app_name=app_name, user_id=user_id, session_id=session_id
            )

    async def append_event(self, session: GoogleSession, event: GoogleEvent) -> GoogleEvent:
        """Commit ``event`` atomically and update ``session`` as google-adk's services do.

        Raises:
            StaleSessionError: ``session`` was loaded before another append (or was not read
                through this service); nothing was written.
        """
        if event.partial:
            return event
        shell = _shell(session)
        with google_errors_of():
            result = await self._service.commit_event(shell, from_google_event(event))
        committed = event
        if result.already_stored:
            committed = to_google_event(result.event)
            if result.sequence != shell.revision:
                return committed  # an old retry: the session object stays as it was
        self._apply_temp_state(session, committed)
        committed = self._trim_temp_delta_state(committed)
        self._commit_event_to_session(session, committed)
        session.last_update_time = result.update_time
        session._storage_update_marker = session_marker(result.sequence, shell._incarnation)
        return committed


def _shell(session: GoogleSession) -> Session:
    """The adk_runtime session an append checks against: ids, revision, incarnation."""
    found = parse_marker(session._storage_update_marker)
    if found is None:
        raise StaleSessionError(
            "This session object was not read through DurableSessionService (it carries no "
            "store revision); get it with get_session or create_session, then append."
        )
    shell = Session(id=session.id, app_name=session.app_name, user_id=session.user_id)
    shell.revision, shell._incarnation = found
    return shell
