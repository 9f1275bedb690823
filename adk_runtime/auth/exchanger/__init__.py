"""Credential exchangers: a credential in, the credential a tool can use out."""

from adk_runtime.auth.exchanger.base_credential_exchanger import (
    BaseCredentialExchanger,
    CredentialExchangeError,
    ExchangeResult,
)
from adk_runtime.auth.exchanger.credential_exchanger_registry import CredentialExchangerRegistry
from adk_runtime.auth.exchanger.oauth2_credential_exchanger import OAuth2CredentialExchanger
from adk_runtime.auth.exchanger.service_account_credential_exchanger import (
    ServiceAccountCredentialExchanger,
)

__all__ = [
    "BaseCredentialExchanger",
    "CredentialExchangeError",
    "CredentialExchangerRegistry",
    "ExchangeResult",
    "OAuth2CredentialExchanger",
    "ServiceAccountCredentialExchanger",
]
