"""ReadonlyContext: what instructions and callbacks may read about an invocation."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from google.genai import types

if TYPE_CHECKING:
    from adk_runtime.auth.auth_credential import AuthCredential
    from adk_runtime.core.invocation_context import InvocationContext
    from adk_runtime.core.run_config import RunConfig
    from adk_runtime.sessions.session import Session

__all__ = ["ReadonlyContext"]


class ReadonlyContext:
    """A read-only view of the running invocation."""

    def __init__(self, invocation_context: InvocationContext) -> None:
        """Wrap ``invocation_context``."""
        self._invocation_context = invocation_context

    @property
    def user_content(self) -> types.Content | None:
        """The user message that started the invocation."""
        return self._invocation_context.user_content

    @property
    def is_aborted(self) -> bool:
        """Whether the invocation was asked to stop (see ``InvocationContext.abort``)."""
        return self._invocation_context.is_aborted

    @property
    def invocation_id(self) -> str:
        """The id of the running invocation."""
        return self._invocation_context.invocation_id

    @property
    def agent_name(self) -> str:
        """The name of the running agent."""
        return self._invocation_context.agent.name

    @property
    def session(self) -> Session:
        """The session of the invocation."""
        return self._invocation_context.session

    @property
    def state(self) -> Mapping[str, Any]:
        """The session state (merged, including dirty writes of this invocation), read-only."""
        return MappingProxyType(self._invocation_context.session.state)

    @property
    def user_id(self) -> str:
        """The id of the user the session belongs to."""
        return self._invocation_context.user_id

    @property
    def run_config(self) -> RunConfig:
        """The settings of this invocation."""
        return self._invocation_context.run_config

    def get_credential(self, key: str) -> AuthCredential | None:
        """The credential resolved for a toolset in this invocation under ``key``, or None."""
        credential: AuthCredential | None = self._invocation_context.credential_by_key.get(key)
        return credential

    @property
    def custom_metadata(self) -> Mapping[str, Any]:
        """The invocation's metadata, read-only.

        ``RunConfig.custom_metadata`` and what tools and callbacks of this invocation added
        (``CallbackContext.custom_metadata``).
        """
        return MappingProxyType(self._invocation_context._custom_metadata)
