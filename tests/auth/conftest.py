from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.auth.helpers import CLIENT_ID, CLIENT_SECRET, PUBLIC_CLIENT_ID
from tests.auth.oauth_server import OAuthServer, running_oauth_server


@pytest.fixture
def oauth_server() -> Iterator[OAuthServer]:
    """A real OAuth2 server on loopback: one confidential client and one public client."""
    with running_oauth_server(clients={CLIENT_ID: CLIENT_SECRET, PUBLIC_CLIENT_ID: None}) as server:
        yield server
