"""OAuth2 metadata discovery: RFC 8414, OpenID Connect Discovery 1.0 and RFC 9728.

Discovery is best effort: a server that does not answer, answers an error, or answers
something that is not metadata gives None (logged at debug level with the URL and the kind
of failure, never the response body). Metadata whose ``issuer`` / ``resource`` is not the one
asked for is discarded (a mix-up defence, RFC 8414 section 3.3, RFC 9728 section 3.3).
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import TypeVar
from urllib.parse import urlsplit

import httpx
from pydantic import BaseModel, ValidationError

__all__ = ["AuthorizationServerMetadata", "OAuth2DiscoveryManager", "ProtectedResourceMetadata"]

logger = logging.getLogger(__name__)

DISCOVERY_TIMEOUT_SECONDS = 5

_M = TypeVar("_M", bound=BaseModel)


class AuthorizationServerMetadata(BaseModel):
    """An authorization server's metadata (RFC 8414): the fields a client needs."""

    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    scopes_supported: list[str] | None = None
    registration_endpoint: str | None = None


class ProtectedResourceMetadata(BaseModel):
    """A protected resource's metadata (RFC 9728): which servers issue its tokens."""

    resource: str
    authorization_servers: list[str] = []


def _split(url: str) -> tuple[str, str] | None:
    """``(scheme://host[:port], path without trailing slash)``, or None for a bad URL."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc}", parts.path.rstrip("/")


def _new_client() -> httpx.AsyncClient:
    return httpx.AsyncClient(timeout=DISCOVERY_TIMEOUT_SECONDS)


class OAuth2DiscoveryManager:
    """Finds an authorization server's endpoints, and a resource's authorization servers."""

    async def discover_auth_server_metadata(
        self, issuer_url: str
    ) -> AuthorizationServerMetadata | None:
        """The metadata of the authorization server ``issuer_url``, or None.

        Tries, in order: ``/.well-known/oauth-authorization-server`` and
        ``/.well-known/openid-configuration`` inserted before the issuer's path, then (for an
        issuer with a path) the OpenID form appended to it.
        """
        split = _split(issuer_url)
        if split is None:
            logger.warning("Cannot discover OAuth2 metadata: %r is not an http(s) URL.", issuer_url)
            return None
        base, path = split
        candidates = [
            f"{base}/.well-known/oauth-authorization-server{path}",
            f"{base}/.well-known/openid-configuration{path}",
        ]
        if path:
            candidates.append(f"{base}{path}/.well-known/openid-configuration")
        expected = issuer_url.rstrip("/")
        async with await asyncio.to_thread(_new_client) as client:
            for url in candidates:
                metadata = await _fetch(client, url, AuthorizationServerMetadata)
                if metadata is None:
                    continue
                if metadata.issuer.rstrip("/") == expected:
                    return metadata
                logger.warning(
                    "Ignoring OAuth2 metadata at %s: its issuer %s is not %s.",
                    url,
                    metadata.issuer,
                    issuer_url,
                )
        return None

    async def discover_resource_metadata(
        self, resource_url: str
    ) -> ProtectedResourceMetadata | None:
        """The metadata of the protected resource ``resource_url`` (RFC 9728), or None."""
        split = _split(resource_url)
        if split is None:
            logger.warning(
                "Cannot discover resource metadata: %r is not an http(s) URL.", resource_url
            )
            return None
        base, path = split
        url = f"{base}/.well-known/oauth-protected-resource{path}"
        async with await asyncio.to_thread(_new_client) as client:
            metadata = await _fetch(client, url, ProtectedResourceMetadata)
        if metadata is None:
            return None
        if metadata.resource.rstrip("/") != resource_url.rstrip("/"):
            logger.warning(
                "Ignoring resource metadata at %s: its resource %s is not %s.",
                url,
                metadata.resource,
                resource_url,
            )
            return None
        return metadata


async def _fetch(client: httpx.AsyncClient, url: str, model: type[_M]) -> _M | None:
    try:
        response = await client.get(url, timeout=DISCOVERY_TIMEOUT_SECONDS)
        response.raise_for_status()
        return model.model_validate(response.json())
    except httpx.HTTPStatusError as exc:
        logger.debug("No metadata at %s (HTTP %s).", url, exc.response.status_code)
    except httpx.HTTPError as exc:
        logger.debug("No metadata at %s (%s).", url, type(exc).__name__)
    except (json.JSONDecodeError, ValidationError):
        logger.debug("No metadata at %s (the answer is not valid metadata).", url)
    return None
