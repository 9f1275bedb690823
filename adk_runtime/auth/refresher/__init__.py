"""Credential refreshers: an expired credential in, a renewed one out."""

from adk_runtime.auth.refresher.base_credential_refresher import (
    BaseCredentialRefresher,
    CredentialRefresherError,
)
from adk_runtime.auth.refresher.credential_refresher_registry import CredentialRefresherRegistry
from adk_runtime.auth.refresher.oauth2_credential_refresher import OAuth2CredentialRefresher

__all__ = [
    "BaseCredentialRefresher",
    "CredentialRefresherError",
    "CredentialRefresherRegistry",
    "OAuth2CredentialRefresher",
]
