"""What the credential code reads of the context it is given (the ``CredentialContext`` shape).

Credential services, auth providers and ``CredentialManager`` take the context of the running
step: a ``CallbackContext`` or a ``ToolContext``, which have this shape without naming it. The
shape is auth's own, so auth never imports the contexts (they sit in a layer above it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from adk_runtime.auth.auth_credential import AuthCredential
    from adk_runtime.auth.auth_tool import AuthConfig
    from adk_runtime.auth.credential_service.base_credential_service import (
        BaseCredentialService,
    )
    from adk_runtime.sessions.session import Session
    from adk_runtime.sessions.state import State

__all__ = ["CredentialContext"]


class _Invocation(Protocol):
    """The invocation behind a context: whether the Runner has a credential service."""

    @property
    def credential_service(self) -> BaseCredentialService | None: ...


class CredentialContext(Protocol):
    """The context of a callback or tool as the credential code uses it.

    ``CallbackContext`` and ``ToolContext`` have it, and are what the runtime passes. A
    credential service or auth provider of one's own annotates its context parameter with
    this type, as the base classes do.
    """

    @property
    def session(self) -> Session:
        """The session (its ``app_name`` scopes stored credentials)."""
        ...

    @property
    def user_id(self) -> str:
        """The user whose credentials are read and saved."""
        ...

    @property
    def state(self) -> State:
        """The session state, writes recorded in the step's delta."""
        ...

    @property
    def _invocation_context(self) -> _Invocation:
        """The invocation (google-adk's credential code reads its credential service)."""
        ...

    async def load_credential(self, auth_config: AuthConfig) -> AuthCredential | None:
        """The credential saved for ``auth_config`` for this user, or None."""
        ...

    async def save_credential(self, auth_config: AuthConfig) -> None:
        """Save ``auth_config.exchanged_auth_credential`` for this user."""
        ...
