"""BaseAuthenticatedTool: a tool that gets its credential before it runs (needs ``auth``)."""

from __future__ import annotations

import logging
from abc import ABCMeta, abstractmethod
from typing import TYPE_CHECKING, Any, cast

from adk_runtime.auth.credential_manager import CredentialManager
from adk_runtime.core.base_tool import BaseTool

if TYPE_CHECKING:
    from adk_runtime.auth.auth_credential import AuthCredential
    from adk_runtime.auth.auth_tool import AuthConfig
    from adk_runtime.core.tool_context import ToolContext

__all__ = ["PENDING_AUTHORIZATION", "BaseAuthenticatedTool", "authenticate"]

logger = logging.getLogger(__name__)

PENDING_AUTHORIZATION = "Pending User Authorization."
"""What a tool answers while it waits for the user's credential (unless told otherwise)."""


async def authenticate(
    manager: CredentialManager | None, tool_context: ToolContext
) -> tuple[AuthCredential | None, bool]:
    """Get the tool's credential: ``(credential, ready)``.

    ``ready`` is False when there is no credential yet: it has then been requested from
    the client (``tool_context.request_credential``) and the tool must answer that it waits.
    With no manager (no auth config) the tool runs unauthenticated: ``(None, True)``.
    """
    if manager is None:
        return None, True
    credential = await manager.get_auth_credential(tool_context)
    if credential is not None:
        return credential, True
    await manager.request_credential(tool_context)
    return None, False


class BaseAuthenticatedTool(BaseTool, metaclass=ABCMeta):
    """A tool whose API needs a credential (an OAuth2 sign-in, an API key, a token).

    ``run_async`` gets the credential through a :class:`CredentialManager` (saved, the
    user's answer, exchanged or refreshed as needed). When there is none yet it asks the
    client for it (an ``adk_request_credential`` call the user answers) and answers
    ``response_for_auth_required``; the call runs again once the user has answered.
    Subclasses implement :meth:`_run_async_impl`, which receives the credential.
    """

    def __init__(
        self,
        *,
        name: str,
        description: str,
        auth_config: AuthConfig | None = None,
        response_for_auth_required: dict[str, Any] | str | None = None,
    ) -> None:
        """Create the tool.

        Args:
            name: The tool's name.
            description: What the tool does, for the model.
            auth_config: The credential the tool needs; None runs it without one.
            response_for_auth_required: The tool's answer while the credential is requested
                from the user (default: ``"Pending User Authorization."``).
        """
        super().__init__(name=name, description=description)
        self._auth_config = auth_config
        self._credentials_manager: CredentialManager | None = None
        if auth_config is not None and auth_config.auth_scheme is not None:
            self._credentials_manager = CredentialManager(auth_config=auth_config)
        else:
            logger.debug("Tool %s has no auth config: it runs without a credential.", name)
        self._response_for_auth_required = response_for_auth_required

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Get the credential (or request it), then run :meth:`_run_async_impl`."""
        credential, ready = await authenticate(self._credentials_manager, tool_context)
        if not ready:
            return self._response_for_auth_required or PENDING_AUTHORIZATION
        return await self._run_async_impl(
            args=args,
            tool_context=tool_context,
            # None only for a tool without auth config, as in google-adk.
            credential=cast("AuthCredential", credential),
        )

    @abstractmethod
    async def _run_async_impl(
        self, *, args: dict[str, Any], tool_context: ToolContext, credential: AuthCredential
    ) -> Any:
        """Answer the call with the credential (None when the tool has no auth config)."""
