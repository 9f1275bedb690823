"""AuthHandler's sign-in request: the URI it builds works at a real OAuth2 server."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi.openapi.models import (
    OAuth2,
    OAuthFlowAuthorizationCode,
    OAuthFlowClientCredentials,
    OAuthFlowImplicit,
    OAuthFlows,
)

from adk_runtime.auth import AuthConfig, AuthCredential, AuthCredentialTypes
from adk_runtime.auth.auth_handler import AuthHandler
from adk_runtime.auth.exchanger import OAuth2CredentialExchanger
from adk_runtime.auth.exchanger import oauth2_credential_exchanger as exchanger_module
from tests.auth.helpers import (
    CLIENT_SECRET,
    PUBLIC_CLIENT_ID,
    REDIRECT_URI,
    code_scheme,
    oauth2_credential,
)
from tests.auth.oauth_server import OAuthServer

pytestmark = pytest.mark.usefixtures("blockbuster")


def _query(uri: str) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(urlsplit(uri).query).items()}


async def _exchange(config: AuthConfig, requested: AuthCredential, response_uri: str) -> str:
    """The access token the user's redirect gets, exchanged as the runtime does."""
    answer = requested.model_copy(deep=True)
    assert answer.oauth2 is not None
    answer.oauth2.auth_response_uri = response_uri
    raw = config.raw_auth_credential
    answer.oauth2.client_secret = raw.oauth2.client_secret if raw and raw.oauth2 else None
    handler = AuthHandler(config.model_copy(update={"exchanged_auth_credential": answer}))
    exchanged = await handler.exchange_auth_token()
    assert exchanged.oauth2 is not None
    assert exchanged.oauth2.access_token
    return exchanged.oauth2.access_token


async def test_a_confidential_clients_sign_in_uri_works_and_its_code_is_exchanged(
    oauth_server: OAuthServer,
) -> None:
    config = AuthConfig(
        auth_scheme=code_scheme(oauth_server),
        raw_auth_credential=oauth2_credential(redirect_uri=REDIRECT_URI),
    )

    request = AuthHandler(config).generate_auth_request()  # on the loop: must not block

    requested = request.exchanged_auth_credential
    assert requested is not None
    assert requested.oauth2 is not None
    assert requested.oauth2.client_secret is None
    uri = requested.oauth2.auth_uri or ""
    assert CLIENT_SECRET not in uri
    params = _query(uri)
    assert params["state"] == requested.oauth2.state
    assert params["scope"] == "read"
    assert (params["access_type"], params["prompt"]) == ("offline", "consent")
    assert "code_challenge" not in params
    token = await _exchange(config, requested, await oauth_server.sign_in_async(uri))
    assert oauth_server.token_info(token) is not None


async def test_a_public_client_gets_pkce_and_the_verifier_stays_out_of_the_uri(
    oauth_server: OAuthServer,
) -> None:
    config = AuthConfig(
        auth_scheme=code_scheme(oauth_server),
        raw_auth_credential=oauth2_credential(
            client_id=PUBLIC_CLIENT_ID, client_secret=None, redirect_uri=REDIRECT_URI
        ),
    )

    requested = AuthHandler(config).generate_auth_uri()

    assert requested is not None
    assert requested.oauth2 is not None
    verifier = requested.oauth2.code_verifier or ""
    assert len(verifier) == 48
    assert requested.oauth2.code_challenge_method == "S256"
    uri = requested.oauth2.auth_uri or ""
    assert verifier not in uri
    assert _query(uri)["code_challenge_method"] == "S256"
    token = await _exchange(config, requested, await oauth_server.sign_in_async(uri))
    assert oauth_server.token_info(token) is not None


def test_audience_nonce_and_prompt_go_into_the_uri(oauth_server: OAuthServer) -> None:
    config = AuthConfig(
        auth_scheme=code_scheme(oauth_server),
        raw_auth_credential=oauth2_credential(audience="api://x", nonce="n-1", prompt="none"),
    )

    requested = AuthHandler(config).generate_auth_uri()

    assert requested is not None
    assert requested.oauth2 is not None
    params = _query(requested.oauth2.auth_uri or "")
    assert (params["audience"], params["nonce"], params["prompt"]) == ("api://x", "n-1", "none")


def test_the_flows_are_read_implicit_first_then_token_urls() -> None:
    both = OAuth2(
        flows=OAuthFlows(
            implicit=OAuthFlowImplicit(authorizationUrl="https://as.test/implicit", scopes={}),
            authorizationCode=OAuthFlowAuthorizationCode(
                authorizationUrl="https://as.test/code", tokenUrl="https://as.test/token"
            ),
        )
    )
    token_only = OAuth2(
        flows=OAuthFlows(clientCredentials=OAuthFlowClientCredentials(tokenUrl="https://as.test/t"))
    )

    for scheme, expected in ((both, "https://as.test/implicit"), (token_only, "https://as.test/t")):
        config = AuthConfig(auth_scheme=scheme, raw_auth_credential=oauth2_credential())
        requested = AuthHandler(config).generate_auth_uri()
        assert requested is not None
        assert requested.oauth2 is not None
        assert (requested.oauth2.auth_uri or "").startswith(expected + "?")


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (None, "requires auth_credential"),
        (
            AuthCredential(auth_type=AuthCredentialTypes.API_KEY, api_key="k"),
            "requires oauth2 in auth_credential",
        ),
        (oauth2_credential(client_id=None), "requires client_id"),
        (oauth2_credential(code_challenge_method="plain"), "Unsupported code_challenge_method"),
    ],
)
def test_a_config_that_cannot_sign_in_is_refused(
    oauth_server: OAuthServer, raw: AuthCredential | None, message: str
) -> None:
    config = AuthConfig(auth_scheme=code_scheme(oauth_server), raw_auth_credential=raw)

    with pytest.raises(ValueError, match=message):
        AuthHandler(config).generate_auth_request()


async def test_without_authlib_the_exchanger_leaves_the_credential_alone(
    oauth_server: OAuthServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(exchanger_module, "AUTHLIB_AVAILABLE", False)
    credential = oauth2_credential(auth_code="some-code", redirect_uri=REDIRECT_URI)

    result = await OAuth2CredentialExchanger().exchange(credential, code_scheme(oauth_server))

    assert result.was_exchanged is False
    assert result.credential == credential
    assert oauth_server.token_request_count() == 0
