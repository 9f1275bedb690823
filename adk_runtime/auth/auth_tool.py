"""What a tool asks the user for (``AuthConfig``) and the request the client receives."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel

from adk_runtime.auth.auth_credential import AuthCredential, BaseModelWithConfig
from adk_runtime.auth.auth_schemes import AuthScheme

__all__ = ["AuthConfig", "AuthToolArguments"]

# Fields that change during one OAuth2 flow: the key of a credential never depends on them.
_FLOW_STAGE_FIELDS = (
    "auth_uri",
    "state",
    "auth_response_uri",
    "auth_code",
    "access_token",
    "refresh_token",
    "expires_at",
    "expires_in",
    "redirect_uri",
)


def _digest(model: BaseModel) -> str:
    """A short digest of ``model``'s declared fields: stable across processes and key order."""
    dumped = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    extra = set(model.model_extra or {})
    declared = {key: value for key, value in dumped.items() if key not in extra}
    text = json.dumps(declared, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class AuthConfig(BaseModelWithConfig):
    """The credential a tool needs, and (as the flow goes on) what was obtained.

    Attributes:
        auth_scheme: How the API authenticates.
        raw_auth_credential: What the tool has before the user acts (for OAuth2: the
            client id and secret). The client secret never leaves the process: the request
            the client receives carries none (see ``AuthHandler.generate_auth_request``).
        exchanged_auth_credential: Filled in by the runtime (the authorization URI and
            state), then by the client (the redirect URI the user came back with, or the
            key or token itself), then by the token exchange.
        credential_key: Where the credential is kept (state and credential services); by
            default derived from the scheme and the client, so one tool's credential is
            found again by the next call and never mixed with another tool's.
    """

    auth_scheme: AuthScheme
    raw_auth_credential: AuthCredential | None = None
    exchanged_auth_credential: AuthCredential | None = None
    credential_key: str | None = None

    def __init__(self, **data: Any) -> None:
        super().__init__(**data)
        if not self.credential_key:
            self.credential_key = self._explicit_key() or self._derived_key()

    def _explicit_key(self) -> str | None:
        for source in (self.raw_auth_credential, self.auth_scheme):
            extra = (source.model_extra if source is not None else None) or {}
            for name in ("credential_key", "credentialKey"):
                value = extra.get(name)
                if isinstance(value, str) and value:
                    return value
        return None

    def _derived_key(self) -> str:
        scheme = self.auth_scheme
        kind: Any = getattr(scheme, "type_", "")
        scheme_part = f"{getattr(kind, 'name', kind)}_{_digest(scheme)}"
        credential = self.raw_auth_credential
        if credential is None:
            return f"adk_{scheme_part}_"
        if credential.oauth2 is not None:
            credential = credential.model_copy(
                update={
                    "oauth2": credential.oauth2.model_copy(update=dict.fromkeys(_FLOW_STAGE_FIELDS))
                }
            )
        return f"adk_{scheme_part}_{credential.auth_type.value}_{_digest(credential)}"

    def get_credential_key(self) -> str:
        """The derived key (deprecated in google-adk: read ``credential_key``)."""
        return self._derived_key()


class AuthToolArguments(BaseModelWithConfig):
    """The arguments of an ``adk_request_credential`` call: which call needs what."""

    function_call_id: str
    auth_config: AuthConfig
