"""The credential a toolset's API needs, from its ``auth_scheme`` (MCP and OpenAPI toolsets)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from adk_runtime.auth.auth_credential import AuthCredential
    from adk_runtime.auth.auth_schemes import AuthScheme
    from adk_runtime.auth.auth_tool import AuthConfig

__all__ = ["auth_config_for"]


def auth_config_for(
    auth_scheme: AuthScheme | None,
    auth_credential: AuthCredential | None,
    credential_key: str | None,
) -> AuthConfig | None:
    """The ``AuthConfig`` the agent resolves before each model call; None without a scheme.

    Imports the ``auth`` extra only when a scheme is given.
    """
    if auth_scheme is None:
        return None
    from adk_runtime.auth.auth_tool import AuthConfig

    return AuthConfig(
        auth_scheme=auth_scheme, raw_auth_credential=auth_credential, credential_key=credential_key
    )
