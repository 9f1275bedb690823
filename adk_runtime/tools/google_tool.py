"""GoogleTool: a function tool that calls a Google API with the user's Google credentials."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from adk_runtime.tools._google_credentials import (
    BaseGoogleCredentialsConfig,
    GoogleCredentialsManager,
)
from adk_runtime.tools.function_tool import FunctionTool

if TYPE_CHECKING:
    import google.auth.credentials

    from adk_runtime.core.tool_context import ToolContext

__all__ = ["GoogleTool"]

logger = logging.getLogger(__name__)

CREDENTIALS_PARAMETER = "credentials"
SETTINGS_PARAMETER = "settings"


class GoogleTool(FunctionTool):
    """A ``FunctionTool`` whose function gets Google credentials and the toolset's settings.

    The function may take ``credentials`` (a ``google.auth`` credential, from
    ``credentials_config`` through :class:`GoogleCredentialsManager`) and ``settings`` (the
    ``tool_settings`` given here); the model sees neither. When the user has not signed in
    yet the tool asks the client for the sign-in and answers that it waits; the call runs
    again once the user has answered. A failure (of the function or of getting the
    credential) is answered as ``{"status": "ERROR", "error_details": ...}``.
    """

    def __init__(
        self,
        func: Callable[..., Any],
        *,
        credentials_config: BaseGoogleCredentialsConfig | None = None,
        tool_settings: BaseModel | None = None,
    ) -> None:
        """Wrap ``func``.

        Args:
            func: The function (sync or async).
            credentials_config: Where the Google credentials come from; None calls the
                function with ``credentials=None``.
            tool_settings: Settings of the toolset that made this tool, passed as
                ``settings``.
        """
        super().__init__(func)
        self._credentials_manager = (
            GoogleCredentialsManager(credentials_config) if credentials_config else None
        )
        self._tool_settings = tool_settings

    @functools.cached_property
    def _ignore_params(self) -> list[str]:
        """The base's hidden parameters, and ``credentials`` / ``settings`` (filled here)."""
        return [
            self._context_param_name,
            "input_stream",
            CREDENTIALS_PARAMETER,
            SETTINGS_PARAMETER,
        ]

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Get the credentials (or ask the user to sign in), then call the function."""
        try:
            credentials = None
            if self._credentials_manager is not None:
                credentials = await self._credentials_manager.get_valid_credentials(tool_context)
                if credentials is None:
                    return (
                        f"{self.name} needs the user to sign in with Google; the sign-in "
                        "has been requested. The call runs once the user has signed in."
                    )
            return await self._run_async_with_credential(
                credentials, self._tool_settings, args, tool_context
            )
        except Exception as exc:  # the model is told what failed
            logger.warning("Tool %s failed: %s", self.name, type(exc).__name__)
            return {"status": "ERROR", "error_details": str(exc)}

    async def _run_async_with_credential(
        self,
        credentials: google.auth.credentials.Credentials | None,
        tool_settings: BaseModel | None,
        args: dict[str, Any],
        tool_context: ToolContext,
    ) -> Any:
        """Call the function with ``args``, and the credentials and settings it asks for."""
        call_args = {
            k: v for k, v in args.items() if k not in (CREDENTIALS_PARAMETER, SETTINGS_PARAMETER)
        }
        names = self._signature.parameter_names
        if CREDENTIALS_PARAMETER in names:
            call_args[CREDENTIALS_PARAMETER] = credentials
        if SETTINGS_PARAMETER in names:
            call_args[SETTINGS_PARAMETER] = tool_settings
        return await super().run_async(args=call_args, tool_context=tool_context)

    def _detect_error_in_response(self, response: Any) -> str | None:
        """``"TOOL_ERROR"`` for an error answer of this tool (for telemetry), else None."""
        if isinstance(response, dict) and response.get("status") == "ERROR":
            return "TOOL_ERROR"
        return None
