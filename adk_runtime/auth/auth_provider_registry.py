"""AuthProviderRegistry: which provider serves which custom auth scheme class."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from adk_runtime.auth.auth_schemes import AuthScheme
    from adk_runtime.auth.base_auth_provider import BaseAuthProvider

__all__ = ["AuthProviderRegistry"]


class AuthProviderRegistry:
    """Providers by scheme class (exact class: a subclass needs its own registration)."""

    def __init__(self) -> None:
        """Create an empty registry."""
        self._providers: dict[type[AuthScheme], BaseAuthProvider] = {}

    def register(
        self, auth_scheme_type: type[AuthScheme], provider_instance: BaseAuthProvider
    ) -> None:
        """Use ``provider_instance`` for schemes of class ``auth_scheme_type``."""
        self._providers[auth_scheme_type] = provider_instance

    def get_provider(self, auth_scheme: AuthScheme | type[AuthScheme]) -> BaseAuthProvider | None:
        """The provider for a scheme (or a scheme class), or None when there is none."""
        scheme_type = auth_scheme if isinstance(auth_scheme, type) else type(auth_scheme)
        return self._providers.get(scheme_type)
