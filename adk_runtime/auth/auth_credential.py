"""Credentials a tool authenticates with: API keys, HTTP auth, OAuth2, service accounts.

Field names and their JSON (camelCase) form are google-adk's, so a client written for it
reads and fills the same objects. Secret fields never appear in ``repr`` (logs, error
messages), and a malformed value is never echoed into a validation error.
"""

from __future__ import annotations

from collections.abc import Iterator
from enum import Enum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, alias_generators, model_validator

__all__ = [
    "SECRET_FIELDS",
    "AuthCredential",
    "AuthCredentialTypes",
    "BaseModelWithConfig",
    "HttpAuth",
    "HttpCredentials",
    "OAuth2Auth",
    "ServiceAccount",
    "ServiceAccountCredential",
]

_HIDDEN = "<hidden>"

Secret = Annotated[str | None, Field(repr=False)]
"""An optional secret string: kept out of ``repr`` (each field still says ``= None``)."""


class BaseModelWithConfig(BaseModel, hide_input_in_errors=True):
    """Base of the credential models: camelCase JSON, extra keys kept, secrets hidden."""

    model_config = ConfigDict(
        extra="allow", alias_generator=alias_generators.to_camel, populate_by_name=True
    )

    def __repr_args__(self) -> Iterator[tuple[str | None, Any]]:
        # Extra keys may hold secrets too (a provider's non-standard token field): show
        # which keys are set, never their values.
        extra = self.__pydantic_extra__ or {}
        for key, value in super().__repr_args__():
            yield key, (_HIDDEN if key in extra else value)


class HttpCredentials(BaseModelWithConfig):
    """The secret part of HTTP authentication: a user name and password, or a token."""

    username: str | None = None
    password: Secret = None
    token: Secret = None


class HttpAuth(BaseModelWithConfig):
    """HTTP authentication (RFC 7235): the scheme (``basic``, ``bearer``) and its secret."""

    scheme: str
    credentials: HttpCredentials
    additional_headers: Annotated[dict[str, str] | None, Field(repr=False)] = None


class OAuth2Auth(BaseModelWithConfig):
    """An OAuth2 / OpenID Connect credential at any stage of its flow.

    The tool sets the client (``client_id``, ``client_secret``, ``redirect_uri``); the
    runtime adds the authorization URI and ``state`` (and a PKCE ``code_verifier``); the
    client sends back ``auth_response_uri`` (or ``auth_code``) after the user signs in; the
    token exchange fills ``access_token``, ``refresh_token``, ``expires_at``.
    """

    client_id: str | None = None
    client_secret: Secret = None
    auth_uri: str | None = None
    nonce: str | None = None
    state: str | None = None
    redirect_uri: str | None = None
    auth_response_uri: Secret = None
    auth_code: Secret = None
    access_token: Secret = None
    refresh_token: Secret = None
    id_token: Secret = None
    expires_at: int | None = None
    expires_in: int | None = None
    audience: str | None = None
    prompt: str | None = None
    code_verifier: Secret = None
    code_challenge_method: str | None = None
    token_endpoint_auth_method: (
        Literal["client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt"]
        | None
    ) = "client_secret_basic"


class ServiceAccountCredential(BaseModelWithConfig):
    """A Google service account key (the JSON key file's fields)."""

    type_: str = Field("", alias="type")
    project_id: str
    private_key_id: Annotated[str, Field(repr=False)]
    private_key: Annotated[str, Field(repr=False)]
    client_email: str
    client_id: str
    auth_uri: str
    token_uri: str
    auth_provider_x509_cert_url: str
    client_x509_cert_url: str
    universe_domain: str


class ServiceAccount(BaseModelWithConfig):
    """A Google service account: a key, or Application Default Credentials.

    Attributes:
        service_account_credential: The key; required unless ``use_default_credential``.
        scopes: The OAuth2 scopes to ask for.
        use_default_credential: Use Application Default Credentials instead of a key.
        use_id_token: Ask for an ID token (service-to-service calls); needs ``audience``.
        audience: The receiving service's URL, for an ID token.
    """

    service_account_credential: ServiceAccountCredential | None = None
    scopes: list[str] | None = None
    use_default_credential: bool | None = False
    use_id_token: bool | None = False
    audience: str | None = None

    @model_validator(mode="after")
    def _check(self) -> ServiceAccount:
        if not self.use_default_credential and self.service_account_credential is None:
            raise ValueError(
                "A service account needs service_account_credential (a key) unless "
                "use_default_credential is set."
            )
        if self.use_id_token and not self.audience:
            raise ValueError(
                "An ID token needs an audience: set audience to the receiving service's URL."
            )
        return self


class AuthCredentialTypes(str, Enum):
    """The kind of a credential (OpenAPI's security scheme types, plus service accounts)."""

    API_KEY = "apiKey"
    HTTP = "http"
    OAUTH2 = "oauth2"
    OPEN_ID_CONNECT = "openIdConnect"
    SERVICE_ACCOUNT = "serviceAccount"


class AuthCredential(BaseModelWithConfig):
    """A credential: its type and the section for that type.

    Examples: ``AuthCredential(auth_type=AuthCredentialTypes.API_KEY, api_key="k")``;
    ``AuthCredential(auth_type=AuthCredentialTypes.OAUTH2, oauth2=OAuth2Auth(client_id="c",
    client_secret="s"))``; a bearer token as ``http=HttpAuth(scheme="bearer",
    credentials=HttpCredentials(token="t"))``.
    """

    auth_type: AuthCredentialTypes
    resource_ref: str | None = None
    api_key: Secret = None
    http: HttpAuth | None = None
    service_account: ServiceAccount | None = None
    oauth2: OAuth2Auth | None = None


SECRET_FIELDS = frozenset(
    name
    for model in (HttpCredentials, HttpAuth, OAuth2Auth, ServiceAccountCredential, AuthCredential)
    for field_name, info in model.model_fields.items()
    if not info.repr
    for name in (field_name, alias_generators.to_camel(field_name))
)
"""The secret fields of every credential model, by name and by JSON alias."""
