"""CallbackContext: what agent and model callbacks may read and write."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from google.genai import types
from pydantic import BaseModel

from adk_runtime.core.readonly_context import ReadonlyContext
from adk_runtime.errors import ServiceNotConfiguredError
from adk_runtime.events import Event, EventActions
from adk_runtime.events.ui_widget import UiWidget
from adk_runtime.sessions.state import State

if TYPE_CHECKING:
    from adk_runtime.artifacts.base import ArtifactVersion, BaseArtifactService
    from adk_runtime.auth.auth_credential import AuthCredential
    from adk_runtime.auth.auth_tool import AuthConfig
    from adk_runtime.auth.credential_service.base_credential_service import (
        BaseCredentialService,
    )
    from adk_runtime.core.invocation_context import InvocationContext
    from adk_runtime.memory.base import BaseMemoryService, MemoryEntry, SearchMemoryResponse

__all__ = ["CallbackContext"]


def _state_schema(invocation_context: InvocationContext) -> type[BaseModel] | None:
    """The agent's ``state_schema``; None for a context without a real agent.

    Tests of tools and callbacks often build contexts on a ``Mock(spec=InvocationContext)``
    with no ``agent``, as google-adk allows: such a context checks no schema.
    """
    agent = getattr(invocation_context, "agent", None)
    effective = getattr(agent, "effective_state_schema", None)
    schema = effective() if callable(effective) else None
    return schema if isinstance(schema, type) and issubclass(schema, BaseModel) else None


class CallbackContext(ReadonlyContext):
    """A context whose state writes land in the ``actions`` of the event that carries the step.

    A write is visible at once to the rest of the invocation and becomes durable when that
    event is committed.
    """

    def __init__(
        self,
        invocation_context: InvocationContext,
        *,
        event_actions: EventActions | None = None,
    ) -> None:
        """Wrap ``invocation_context``; writes are recorded in ``event_actions``."""
        super().__init__(invocation_context)
        self._event_actions = event_actions if event_actions is not None else EventActions()
        self._state = State(
            value=invocation_context.session.state,
            delta=self._event_actions.state_delta,
            schema=_state_schema(invocation_context),
        )

    @property
    def state(self) -> State:  # type: ignore[override]
        """The session state; writes are recorded in this step's ``state_delta``."""
        return self._state

    @property
    def actions(self) -> EventActions:
        """The actions of the event that will carry this step."""
        return self._event_actions

    @property
    def custom_metadata(self) -> dict[str, Any]:
        """The invocation's metadata (seeded from ``RunConfig.custom_metadata``), writable.

        What a tool or callback puts here the later steps of the invocation read. It lives as
        long as the invocation and is not stored (events carry the run's metadata).
        """
        return self._invocation_context._custom_metadata

    @property
    def branch(self) -> str | None:
        """The invocation's branch (``parent.child`` path of parallel sub-agents), if any."""
        return self._invocation_context.branch

    @property
    def isolation_scope(self) -> str | None:
        """The delegated task being run (see ``LlmAgent.mode``), or None outside tasks."""
        return self._invocation_context.isolation_scope

    def get_invocation_context(self) -> InvocationContext:
        """The running invocation (its session is the one this context reads and writes)."""
        return self._invocation_context

    async def save_artifact(
        self,
        filename: str,
        artifact: types.Part,
        custom_metadata: dict[str, Any] | None = None,
    ) -> int:
        """Save a new version of ``filename``; the step's event records it in ``artifact_delta``.

        Args:
            filename: The artifact's name.
            artifact: Its content.
            custom_metadata: Stored with this version (JSON values).

        Returns:
            The new version number.

        Raises:
            ServiceNotConfiguredError: The Runner has no artifact service.
        """
        version = await self._artifact_service().save_artifact(
            filename=filename,
            artifact=artifact,
            custom_metadata=custom_metadata,
            **self._artifact_scope(),
        )
        self._event_actions.artifact_delta[filename] = version
        return version

    async def load_artifact(self, filename: str, version: int | None = None) -> types.Part | None:
        """Return a version (default: the latest) of ``filename``, or None when there is none."""
        return await self._artifact_service().load_artifact(
            filename=filename, version=version, **self._artifact_scope()
        )

    async def get_artifact_version(
        self, filename: str, version: int | None = None
    ) -> ArtifactVersion | None:
        """Describe a version (default: the latest) of ``filename``; None when there is none."""
        return await self._artifact_service().get_artifact_version(
            filename=filename, version=version, **self._artifact_scope()
        )

    async def list_artifacts(self) -> list[str]:
        """Return the filenames of the session's and the user's artifacts, sorted."""
        return await self._artifact_service().list_artifact_keys(**self._artifact_scope())

    async def search_memory(self, query: str) -> SearchMemoryResponse:
        """Search the user's memories in this app.

        Raises:
            ServiceNotConfiguredError: The Runner has no memory service.
        """
        ctx = self._invocation_context
        service = self._memory_service("Memory service is not available.")
        return await service.search_memory(app_name=ctx.app_name, user_id=ctx.user_id, query=query)

    async def add_session_to_memory(self) -> None:
        """Remember this session (as stored so far) in the memory service.

        Raises:
            ServiceNotConfiguredError: The Runner has no memory service.
        """
        service = self._memory_service(
            "Cannot add session to memory: memory service is not available."
        )
        await service.add_session_to_memory(self._invocation_context.session)

    async def add_events_to_memory(
        self, *, events: Sequence[Event], custom_metadata: Mapping[str, object] | None = None
    ) -> None:
        """Remember ``events`` (a delta, e.g. the latest turn) under this session.

        Raises:
            ServiceNotConfiguredError: The Runner has no memory service.
        """
        session = self._invocation_context.session
        service = self._memory_service(
            "Cannot add events to memory: memory service is not available."
        )
        await service.add_events_to_memory(
            app_name=session.app_name,
            user_id=session.user_id,
            session_id=session.id,
            events=events,
            custom_metadata=custom_metadata,
        )

    async def add_memory(
        self,
        *,
        memories: Sequence[MemoryEntry],
        custom_metadata: Mapping[str, object] | None = None,
    ) -> None:
        """Store memory entries directly, for this user of this app.

        Raises:
            ServiceNotConfiguredError: The Runner has no memory service.
            NotImplementedError: The memory service remembers events only.
        """
        session = self._invocation_context.session
        service = self._memory_service("Cannot add memory: memory service is not available.")
        await service.add_memory(
            app_name=session.app_name,
            user_id=session.user_id,
            memories=memories,
            custom_metadata=custom_metadata,
        )

    async def delete_memory(self, memory_id: str | None = None) -> None:
        """Forget this user's memory whose ``MemoryEntry.id`` is ``memory_id``.

        Raises:
            ServiceNotConfiguredError: The Runner has no memory service.
            NotImplementedError: The memory service cannot forget single memories.
        """
        ctx = self._invocation_context
        service = self._memory_service("Cannot delete memory: memory service is not available.")
        await service.delete_memory(app_name=ctx.app_name, user_id=ctx.user_id, memory_id=memory_id)

    def render_ui_widget(self, ui_widget: UiWidget) -> None:
        """Show ``ui_widget`` with this step's event (committed with it).

        Raises:
            ValueError: This step already shows a widget with that id.
        """
        widgets = self._event_actions.render_ui_widgets
        if widgets is None:
            widgets = self._event_actions.render_ui_widgets = []
        if any(widget.id == ui_widget.id for widget in widgets):
            raise ValueError(
                f"This step already shows a UI widget with id {ui_widget.id!r}: give each "
                "widget its own id."
            )
        widgets.append(ui_widget)

    async def save_credential(self, auth_config: AuthConfig) -> None:
        """Save ``auth_config.exchanged_auth_credential`` in the credential service.

        Raises:
            ServiceNotConfiguredError: The Runner has no credential service.
        """
        await self._credential_service().save_credential(auth_config, self)

    async def load_credential(self, auth_config: AuthConfig) -> AuthCredential | None:
        """The credential saved for ``auth_config`` for this user, or None.

        Raises:
            ServiceNotConfiguredError: The Runner has no credential service.
        """
        return await self._credential_service().load_credential(auth_config, self)

    def get_auth_response(self, auth_config: AuthConfig) -> AuthCredential | None:
        """The credential the user gave for ``auth_config`` in this invocation, or None.

        Set after the user answered the ``adk_request_credential`` request (and exchanged
        for a token when this process issued the request or the client is public; otherwise
        ``CredentialManager`` exchanges it).
        """
        from adk_runtime.auth.auth_handler import AuthHandler

        return AuthHandler(auth_config).get_auth_response(self._invocation_context.session.state)

    def _credential_service(self) -> BaseCredentialService:
        service: BaseCredentialService | None = self._invocation_context.credential_service
        if service is None:
            raise ServiceNotConfiguredError(
                "Credential service is not initialized: pass credential_service to the Runner "
                "(e.g. InMemoryCredentialService())."
            )
        return service

    def _artifact_service(self) -> BaseArtifactService:
        service = self._invocation_context.artifact_service
        if service is None:
            raise ServiceNotConfiguredError(
                "Artifact service is not initialized. Pass artifact_service to the Runner."
            )
        return service

    def _artifact_scope(self) -> dict[str, Any]:
        """The ``app_name``, ``user_id`` and ``session_id`` of this invocation's artifacts."""
        ctx = self._invocation_context
        return {"app_name": ctx.app_name, "user_id": ctx.user_id, "session_id": ctx.session.id}

    def _memory_service(self, missing: str) -> BaseMemoryService:
        """The Runner's memory service; ``missing`` says what could not be done without one."""
        service = self._invocation_context.memory_service
        if service is None:
            raise ServiceNotConfiguredError(f"{missing} Pass memory_service to the Runner.")
        return service
