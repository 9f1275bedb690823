"""OAuth2CredentialRefresher against the real loopback OAuth2 server."""

from __future__ import annotations

import time

import pytest

from adk_runtime.auth import AuthCredential
from adk_runtime.auth.exchanger import OAuth2CredentialExchanger
from adk_runtime.auth.refresher import CredentialRefresherError, OAuth2CredentialRefresher
from adk_runtime.auth.refresher.oauth2_credential_refresher import REFRESH_MARGIN_SECONDS
from tests.auth.helpers import (
    CLIENT_SECRET,
    REDIRECT_URI,
    authorization_uri,
    code_scheme,
    oauth2_credential,
)
from tests.auth.oauth_server import OAuthServer

pytestmark = pytest.mark.usefixtures("blockbuster")


async def signed_in(server: OAuthServer) -> AuthCredential:
    credential = oauth2_credential(
        redirect_uri=REDIRECT_URI,
        state="state-123",
        auth_response_uri=server.sign_in(authorization_uri(server), user="bob"),
    )
    result = await OAuth2CredentialExchanger().exchange(credential, code_scheme(server))
    return result.credential


def expired(credential: AuthCredential) -> AuthCredential:
    copy = credential.model_copy(deep=True)
    assert copy.oauth2 is not None
    copy.oauth2.expires_at = int(time.time()) - 5
    return copy


async def test_an_expired_token_is_refreshed_and_works(oauth_server: OAuthServer) -> None:
    credential = await signed_in(oauth_server)
    assert credential.oauth2 is not None
    old_access, old_refresh = credential.oauth2.access_token, credential.oauth2.refresh_token
    assert old_access is not None
    assert old_refresh is not None
    oauth_server.expire_access_tokens()
    stale = expired(credential)
    refresher = OAuth2CredentialRefresher()

    assert await refresher.is_refresh_needed(stale, code_scheme(oauth_server))
    refreshed = await refresher.refresh(stale, code_scheme(oauth_server))

    assert refreshed.oauth2 is not None
    assert refreshed.oauth2.access_token is not None
    assert refreshed.oauth2.access_token != old_access
    assert oauth_server.token_info(old_access) is None
    assert oauth_server.token_info(refreshed.oauth2.access_token) == {
        "user": "bob",
        "client_id": "agent-client",
        "scope": "read",
    }
    # The server rotates refresh tokens: the new one is kept, the old one is dead.
    assert refreshed.oauth2.refresh_token not in (None, old_refresh)
    assert not oauth_server.is_refresh_token_active(old_refresh)
    assert refreshed.oauth2.expires_at is not None
    assert refreshed.oauth2.expires_at > time.time()
    assert not await refresher.is_refresh_needed(refreshed, code_scheme(oauth_server))
    assert oauth_server.token_request_count("refresh_token", ok=True) == 1
    assert stale.oauth2 is not None
    assert stale.oauth2.access_token == old_access


async def test_a_refresh_keeps_the_refresh_token_when_the_server_does_not_rotate(
    oauth_server: OAuthServer,
) -> None:
    oauth_server.rotate_refresh_tokens = False
    credential = await signed_in(oauth_server)
    assert credential.oauth2 is not None

    refreshed = await OAuth2CredentialRefresher().refresh(
        expired(credential), code_scheme(oauth_server)
    )

    assert refreshed.oauth2 is not None
    assert refreshed.oauth2.refresh_token == credential.oauth2.refresh_token
    assert refreshed.oauth2.access_token != credential.oauth2.access_token


@pytest.mark.parametrize(
    ("seconds_left", "needed"),
    [(-60, True), (REFRESH_MARGIN_SECONDS - 5, True), (REFRESH_MARGIN_SECONDS + 60, False)],
)
async def test_refresh_is_needed_within_the_margin(seconds_left: int, needed: bool) -> None:
    credential = oauth2_credential(access_token="at", expires_at=int(time.time()) + seconds_left)
    assert await OAuth2CredentialRefresher().is_refresh_needed(credential) is needed


async def test_a_token_without_expiry_is_not_refreshed(oauth_server: OAuthServer) -> None:
    credential = oauth2_credential(access_token="at", refresh_token="rt")
    refresher = OAuth2CredentialRefresher()

    assert not await refresher.is_refresh_needed(credential)
    assert await refresher.refresh(credential, code_scheme(oauth_server)) is credential
    assert oauth_server.token_requests == []


async def test_a_revoked_refresh_token_is_a_typed_error_without_the_token(
    oauth_server: OAuthServer,
) -> None:
    dead = "rt_revoked-refresh-token-0123456789"
    credential = oauth2_credential(
        access_token="at_old", refresh_token=dead, expires_at=int(time.time()) - 1
    )

    with pytest.raises(CredentialRefresherError, match="invalid_grant") as caught:
        await OAuth2CredentialRefresher().refresh(credential, code_scheme(oauth_server))

    assert dead not in str(caught.value)
    assert CLIENT_SECRET not in str(caught.value)
    assert oauth_server.token_request_count("refresh_token", ok=False) == 1


async def test_an_expired_token_without_refresh_token_cannot_be_refreshed(
    oauth_server: OAuthServer,
) -> None:
    credential = oauth2_credential(access_token="at_old", expires_at=int(time.time()) - 1)

    with pytest.raises(CredentialRefresherError, match="sign in again"):
        await OAuth2CredentialRefresher().refresh(credential, code_scheme(oauth_server))
    assert oauth_server.token_requests == []
