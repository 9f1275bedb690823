"""OAuth2CredentialExchanger against the real loopback OAuth2 server."""

from __future__ import annotations

import logging

import pytest

from adk_runtime.auth.exchanger import CredentialExchangeError, OAuth2CredentialExchanger
from tests.auth.helpers import (
    CLIENT_SECRET,
    PUBLIC_CLIENT_ID,
    REDIRECT_URI,
    authorization_uri,
    client_credentials_scheme,
    code_scheme,
    oauth2_credential,
    pkce_pair,
)
from tests.auth.oauth_server import OAuthServer

pytestmark = pytest.mark.usefixtures("blockbuster")


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
async def test_authorization_code_is_exchanged_with_the_client_authentication_asked(
    oauth_server: OAuthServer, method: str
) -> None:
    response_uri = oauth_server.sign_in(authorization_uri(oauth_server), user="alice")
    credential = oauth2_credential(
        redirect_uri=REDIRECT_URI,
        state="state-123",
        auth_response_uri=response_uri,
        token_endpoint_auth_method=method,
    )

    result = await OAuth2CredentialExchanger().exchange(credential, code_scheme(oauth_server))

    assert result.was_exchanged
    oauth2 = result.credential.oauth2
    assert oauth2 is not None
    assert oauth2.access_token
    assert oauth2.refresh_token
    assert oauth2.expires_at is not None
    assert oauth2.expires_in == 3600
    assert oauth2.auth_response_uri is None
    assert oauth2.auth_code is None
    assert oauth_server.token_info(oauth2.access_token) == {
        "user": "alice",
        "client_id": "agent-client",
        "scope": "read",
    }
    [request] = oauth_server.token_requests
    assert (request.grant_type, request.auth_method, request.error) == (
        "authorization_code",
        method,
        None,
    )
    assert credential.oauth2 is not None
    assert credential.oauth2.access_token is None  # the input is not changed
    shown = repr(result) + str(result.credential)  # what a log line or a traceback shows
    assert oauth2.access_token not in shown
    assert oauth2.refresh_token not in shown
    assert CLIENT_SECRET not in shown


async def test_a_bare_auth_code_is_exchanged_too(oauth_server: OAuthServer) -> None:
    code = _code(oauth_server.sign_in(authorization_uri(oauth_server)))
    credential = oauth2_credential(redirect_uri=REDIRECT_URI, auth_code=code)

    result = await OAuth2CredentialExchanger().exchange(credential, code_scheme(oauth_server))

    assert result.was_exchanged
    assert result.credential.oauth2 is not None
    assert result.credential.oauth2.access_token


async def test_pkce_public_client_sends_the_verifier_and_no_secret(
    oauth_server: OAuthServer,
) -> None:
    verifier, challenge = pkce_pair()
    uri = authorization_uri(oauth_server, client_id=PUBLIC_CLIENT_ID, code_challenge=challenge)
    credential = oauth2_credential(
        client_id=PUBLIC_CLIENT_ID,
        client_secret=None,
        redirect_uri=REDIRECT_URI,
        state="state-123",
        code_verifier=verifier,
        code_challenge_method="S256",
        auth_response_uri=oauth_server.sign_in(uri),
    )

    result = await OAuth2CredentialExchanger().exchange(credential, code_scheme(oauth_server))

    assert result.was_exchanged
    assert result.credential.oauth2 is not None
    assert result.credential.oauth2.access_token
    assert result.credential.oauth2.code_verifier is None
    [request] = oauth_server.token_requests
    assert request.auth_method == "none"
    assert request.form["code_verifier"] == verifier


async def test_a_wrong_verifier_is_refused(oauth_server: OAuthServer) -> None:
    _, challenge = pkce_pair()
    uri = authorization_uri(oauth_server, client_id=PUBLIC_CLIENT_ID, code_challenge=challenge)
    credential = oauth2_credential(
        client_id=PUBLIC_CLIENT_ID,
        client_secret=None,
        redirect_uri=REDIRECT_URI,
        code_verifier="not-the-verifier-" + "x" * 40,
        code_challenge_method="S256",
        auth_response_uri=oauth_server.sign_in(uri),
    )

    with pytest.raises(CredentialExchangeError, match="invalid_grant"):
        await OAuth2CredentialExchanger().exchange(credential, code_scheme(oauth_server))


async def test_a_bad_code_is_a_typed_error_that_never_shows_the_code(
    oauth_server: OAuthServer, caplog: pytest.LogCaptureFixture
) -> None:
    bad_code = "code_this-one-was-never-issued-0123456789"
    credential = oauth2_credential(redirect_uri=REDIRECT_URI, auth_code=bad_code)
    caplog.set_level(logging.DEBUG)

    with pytest.raises(CredentialExchangeError, match="invalid_grant") as caught:
        await OAuth2CredentialExchanger().exchange(credential, code_scheme(oauth_server))

    assert bad_code not in str(caught.value)
    assert CLIENT_SECRET not in str(caught.value)
    assert caught.value.__cause__ is None
    assert caught.value.__context__ is not None
    for record in caplog.records:
        assert bad_code not in record.getMessage()
        assert CLIENT_SECRET not in record.getMessage()
    assert oauth_server.token_request_count("authorization_code", ok=False) == 1


async def test_secrets_echoed_by_a_careless_server_are_hidden(oauth_server: OAuthServer) -> None:
    oauth_server.echo_request_in_errors = True
    bad_code = "code_echoed-back-by-the-server-0123456789"
    credential = oauth2_credential(
        redirect_uri=REDIRECT_URI,
        auth_code=bad_code,
        token_endpoint_auth_method="client_secret_post",
    )

    with pytest.raises(CredentialExchangeError, match="invalid_grant") as caught:
        await OAuth2CredentialExchanger().exchange(credential, code_scheme(oauth_server))

    assert "request:" in str(caught.value)  # the description is kept...
    assert bad_code not in str(caught.value)  # ...without the secrets in it
    assert CLIENT_SECRET not in str(caught.value)


async def test_a_code_is_single_use(oauth_server: OAuthServer) -> None:
    code = _code(oauth_server.sign_in(authorization_uri(oauth_server)))
    credential = oauth2_credential(redirect_uri=REDIRECT_URI, auth_code=code)
    exchanger = OAuth2CredentialExchanger()
    await exchanger.exchange(credential, code_scheme(oauth_server))

    with pytest.raises(CredentialExchangeError, match="invalid_grant"):
        await exchanger.exchange(credential, code_scheme(oauth_server))


async def test_a_response_with_another_state_is_not_exchanged(oauth_server: OAuthServer) -> None:
    response_uri = oauth_server.sign_in(authorization_uri(oauth_server, state="attacker-state"))
    credential = oauth2_credential(
        redirect_uri=REDIRECT_URI, state="state-123", auth_response_uri=response_uri
    )

    with pytest.raises(CredentialExchangeError, match="state") as caught:
        await OAuth2CredentialExchanger().exchange(credential, code_scheme(oauth_server))

    assert _code(response_uri) not in str(caught.value)
    assert oauth_server.token_requests == []


async def test_a_refused_sign_in_is_reported(oauth_server: OAuthServer) -> None:
    credential = oauth2_credential(
        redirect_uri=REDIRECT_URI,
        state="s",
        auth_response_uri=f"{REDIRECT_URI}?error=access_denied&state=s",
    )

    with pytest.raises(CredentialExchangeError, match="access_denied"):
        await OAuth2CredentialExchanger().exchange(credential, code_scheme(oauth_server))
    assert oauth_server.token_requests == []


async def test_client_credentials_get_a_token_with_the_scheme_scopes(
    oauth_server: OAuthServer,
) -> None:
    result = await OAuth2CredentialExchanger().exchange(
        oauth2_credential(), client_credentials_scheme(oauth_server)
    )

    assert result.was_exchanged
    assert result.credential.oauth2 is not None
    token = result.credential.oauth2.access_token
    assert token is not None
    assert oauth_server.token_info(token) == {
        "user": None,
        "client_id": "agent-client",
        "scope": "read write",
    }
    assert oauth_server.token_request_count("client_credentials", ok=True) == 1


async def test_a_wrong_client_secret_is_invalid_client_without_the_secret(
    oauth_server: OAuthServer,
) -> None:
    wrong = "wrong-secret-value-987"
    with pytest.raises(CredentialExchangeError, match="invalid_client") as caught:
        await OAuth2CredentialExchanger().exchange(
            oauth2_credential(client_secret=wrong), client_credentials_scheme(oauth_server)
        )
    assert wrong not in str(caught.value)


async def test_an_unreachable_token_endpoint_is_a_typed_error(oauth_server: OAuthServer) -> None:
    scheme = client_credentials_scheme(oauth_server)
    assert scheme.flows.clientCredentials is not None
    scheme.flows.clientCredentials.tokenUrl = "http://127.0.0.1:9/token"  # discard port

    with pytest.raises(CredentialExchangeError, match="ConnectError"):
        await OAuth2CredentialExchanger().exchange(oauth2_credential(), scheme)


async def test_nothing_is_exchanged_without_need(oauth_server: OAuthServer) -> None:
    exchanger = OAuth2CredentialExchanger()
    has_token = oauth2_credential(access_token="at_already")
    no_code = oauth2_credential(redirect_uri=REDIRECT_URI)

    assert await exchanger.exchange(has_token, code_scheme(oauth_server)) == (has_token, False)
    assert await exchanger.exchange(no_code, code_scheme(oauth_server)) == (no_code, False)
    assert oauth_server.token_requests == []
    with pytest.raises(CredentialExchangeError, match="auth scheme"):
        await exchanger.exchange(no_code)


def _code(response_uri: str) -> str:
    from urllib.parse import parse_qs, urlsplit

    return parse_qs(urlsplit(response_uri).query)["code"][0]
