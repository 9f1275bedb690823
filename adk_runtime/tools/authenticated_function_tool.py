"""AuthenticatedFunctionTool: a function tool whose function receives its credential."""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from adk_runtime.auth.credential_manager import CredentialManager
from adk_runtime.tools.base_authenticated_tool import PENDING_AUTHORIZATION, authenticate
from adk_runtime.tools.function_tool import FunctionTool

if TYPE_CHECKING:
    from adk_runtime.auth.auth_credential import AuthCredential
    from adk_runtime.auth.auth_tool import AuthConfig
    from adk_runtime.core.tool_context import ToolContext

__all__ = ["AuthenticatedFunctionTool"]

logger = logging.getLogger(__name__)

CREDENTIAL_PARAMETER = "credential"


class AuthenticatedFunctionTool(FunctionTool):
    """A ``FunctionTool`` that gets a credential before calling its function.

    A ``credential`` parameter of the function receives the ``AuthCredential`` (as
    ``tool_context`` receives the context); the model never sees it in the declaration and
    cannot set it. When there is no credential yet the tool asks the client for it and
    answers ``response_for_auth_required`` instead of calling the function; the call runs
    again once the user has answered.
    """

    def __init__(
        self,
        *,
        func: Callable[..., Any],
        auth_config: AuthConfig | None = None,
        response_for_auth_required: dict[str, Any] | str | None = None,
    ) -> None:
        """Wrap ``func``.

        Args:
            func: The function (sync or async); it may take a ``credential`` parameter.
            auth_config: The credential it needs; None calls it with ``credential=None``.
            response_for_auth_required: The tool's answer while the credential is requested
                from the user (default: ``"Pending User Authorization."``).
        """
        super().__init__(func)
        self._credentials_manager: CredentialManager | None = None
        if auth_config is not None and auth_config.auth_scheme is not None:
            self._credentials_manager = CredentialManager(auth_config=auth_config)
        else:
            logger.warning(
                "AuthenticatedFunctionTool %s has no auth config and will run without a "
                "credential; use FunctionTool when no authentication is needed.",
                self.name,
            )
        self._response_for_auth_required = response_for_auth_required
        self._wants_credential = CREDENTIAL_PARAMETER in _parameters(func)

    @functools.cached_property
    def _ignore_params(self) -> list[str]:
        """The base's hidden parameters and ``credential``, which this tool fills itself."""
        return [self._context_param_name, "input_stream", CREDENTIAL_PARAMETER]

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Get the credential (or request it), then call the function with it."""
        credential, ready = await authenticate(self._credentials_manager, tool_context)
        if not ready:
            return self._response_for_auth_required or PENDING_AUTHORIZATION
        return await self._run_async_impl(
            args=args, tool_context=tool_context, credential=credential
        )

    async def _run_async_impl(
        self, *, args: dict[str, Any], tool_context: ToolContext, credential: AuthCredential | None
    ) -> Any:
        call_args = {k: v for k, v in args.items() if k != CREDENTIAL_PARAMETER}
        if self._wants_credential:
            # Set here only: a "credential" the model sends is never passed on.
            call_args[CREDENTIAL_PARAMETER] = credential
        return await super().run_async(args=call_args, tool_context=tool_context)


def _parameters(func: Callable[..., Any]) -> dict[str, inspect.Parameter]:
    try:
        return dict(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        return {}
