"""OAuth2DiscoveryManager against the real loopback server's well-known documents."""

from __future__ import annotations

import logging

import pytest

from adk_runtime.auth.oauth2_discovery import OAuth2DiscoveryManager
from tests.auth.oauth_server import OAuthServer

pytestmark = pytest.mark.usefixtures("blockbuster")


async def test_authorization_server_metadata_is_discovered(oauth_server: OAuthServer) -> None:
    metadata = await OAuth2DiscoveryManager().discover_auth_server_metadata(oauth_server.issuer)

    assert metadata is not None
    assert metadata.issuer == oauth_server.issuer
    assert metadata.authorization_endpoint == oauth_server.authorization_endpoint
    assert metadata.token_endpoint == oauth_server.token_endpoint
    assert metadata.scopes_supported == ["openid", "profile", "read", "write"]


async def test_a_trailing_slash_on_the_issuer_is_the_same_issuer(
    oauth_server: OAuthServer,
) -> None:
    metadata = await OAuth2DiscoveryManager().discover_auth_server_metadata(
        oauth_server.issuer + "/"
    )
    assert metadata is not None
    assert metadata.token_endpoint == oauth_server.token_endpoint


async def test_metadata_of_another_issuer_is_discarded(
    oauth_server: OAuthServer, caplog: pytest.LogCaptureFixture
) -> None:
    oauth_server.advertised_issuer = "https://evil.example"
    caplog.set_level(logging.DEBUG, logger="adk_runtime.auth.oauth2_discovery")

    assert await OAuth2DiscoveryManager().discover_auth_server_metadata(oauth_server.issuer) is None
    assert any("evil.example" in record.getMessage() for record in caplog.records)


@pytest.mark.parametrize("url", ["http://127.0.0.1:9", "not a url", "ftp://example.com"])
async def test_discovery_failures_give_none(url: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="adk_runtime.auth.oauth2_discovery")
    manager = OAuth2DiscoveryManager()
    assert await manager.discover_auth_server_metadata(url) is None
    assert await manager.discover_resource_metadata(url) is None


async def test_an_issuer_path_without_metadata_gives_none(
    oauth_server: OAuthServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="adk_runtime.auth.oauth2_discovery")
    issuer = oauth_server.issuer + "/tenant"

    assert await OAuth2DiscoveryManager().discover_auth_server_metadata(issuer) is None
    # Every well-known form was tried (404), and no body was logged.
    messages = [record.getMessage() for record in caplog.records]
    assert sum("HTTP 404" in message for message in messages) == 3
    assert not any("token_endpoint" in message for message in messages)


@pytest.mark.parametrize("path", ["", "/api"])
async def test_protected_resource_metadata_is_discovered(
    oauth_server: OAuthServer, path: str
) -> None:
    resource = oauth_server.base_url + path
    metadata = await OAuth2DiscoveryManager().discover_resource_metadata(resource)

    assert metadata is not None
    assert metadata.resource == resource
    assert metadata.authorization_servers == [oauth_server.issuer]


async def test_resource_metadata_for_another_resource_is_discarded(
    oauth_server: OAuthServer,
) -> None:
    # /.well-known/oauth-protected-resource/other is not served: a 404, so None.
    assert (
        await OAuth2DiscoveryManager().discover_resource_metadata(oauth_server.base_url + "/other")
        is None
    )
