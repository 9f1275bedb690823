"""Where tools keep credentials between invocations (``Runner(credential_service=...)``)."""

from adk_runtime.auth.credential_service.base_credential_service import BaseCredentialService
from adk_runtime.auth.credential_service.in_memory_credential_service import (
    InMemoryCredentialService,
)
from adk_runtime.auth.credential_service.session_state_credential_service import (
    SessionStateCredentialService,
)

__all__ = ["BaseCredentialService", "InMemoryCredentialService", "SessionStateCredentialService"]
