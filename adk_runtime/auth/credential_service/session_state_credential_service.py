"""SessionStateCredentialService: credentials kept in the session's state."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from pydantic import ValidationError

from adk_runtime.auth.auth_credential import AuthCredential
from adk_runtime.auth.credential_service.base_credential_service import BaseCredentialService
from adk_runtime.auth.oauth2_credential_util import (
    _credential_without_client_secret,
    _with_configured_client_secret,
)

if TYPE_CHECKING:
    from adk_runtime.auth._credential_context import CredentialContext
    from adk_runtime.auth.auth_tool import AuthConfig

__all__ = ["SessionStateCredentialService"]

logger = logging.getLogger(__name__)


class SessionStateCredentialService(BaseCredentialService):
    """Keeps each credential in the session state, under ``auth_config.credential_key``.

    What that means here: a save is a state write of the running step (``callback_context
    .state[key] = ...``). Like any state write it is visible at once to the rest of the
    invocation, lands in the ``state_delta`` of the event that carries the step (for a tool,
    its function-response event) and is committed with that event: **the credential is
    stored in the session store** (the session row of SQLite / PostgreSQL, the session hash
    in Redis), in clear text, for as long as the session exists. It is also in that event's
    ``state_delta`` in the session's history. Anyone who can read the session (the session
    service, the HTTP API's session endpoints, an export) can read the end user's access
    and refresh tokens. If the step fails before its event is committed, the save is lost.

    The key has no ``user:`` / ``app:`` prefix, so the credential belongs to this one
    session: another session of the same user signs in again.

    The agent's OAuth2 client secret is never stored: it is dropped on save and put back from
    ``auth_config.raw_auth_credential`` on load. The value stored is the credential's JSON
    form (camelCase keys), which every session store can hold.
    """

    async def load_credential(
        self, auth_config: AuthConfig, callback_context: CredentialContext
    ) -> AuthCredential | None:
        """The credential in this session's state under the key, or None."""
        stored = callback_context.state.get(auth_config.credential_key or "")
        credential: AuthCredential | None
        if stored is None:
            return None
        if isinstance(stored, AuthCredential):
            credential = stored
        elif isinstance(stored, dict):
            try:
                credential = AuthCredential.model_validate(stored)
            except ValidationError:
                logger.warning(
                    "Ignoring the value stored under credential key %s: it is not a credential.",
                    auth_config.credential_key,
                )
                return None
        else:
            logger.warning(
                "Ignoring a %s stored under credential key %s: only credentials saved by "
                "save_credential are read.",
                type(stored).__name__,
                auth_config.credential_key,
            )
            return None
        return _with_configured_client_secret(
            credential=credential, raw_credential=auth_config.raw_auth_credential
        )

    async def save_credential(
        self, auth_config: AuthConfig, callback_context: CredentialContext
    ) -> None:
        """Write ``auth_config.exchanged_auth_credential`` (without client secret) to state."""
        credential = _credential_without_client_secret(auth_config.exchanged_auth_credential)
        callback_context.state[auth_config.credential_key or ""] = (
            None
            if credential is None
            else credential.model_dump(mode="json", by_alias=True, exclude_none=True)
        )
