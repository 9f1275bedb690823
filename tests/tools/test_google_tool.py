"""GoogleTool and GoogleCredentialsManager: Google credentials for a function tool.

Refreshes go through google-auth to the loopback OAuth2 server (the cached credential names
its token URI), in a worker thread: the tests run with blocking calls on the loop failing.
"""

from __future__ import annotations

import datetime
import json
import threading
from collections.abc import Iterator
from typing import Any

import google.auth.credentials
import google.oauth2.credentials
import pytest
from pydantic import BaseModel

from adk_runtime.auth.auth_handler import AuthHandler
from adk_runtime.auth.exchanger import OAuth2CredentialExchanger
from adk_runtime.integrations.bigquery import BigQueryCredentialsConfig
from adk_runtime.integrations.bigquery.bigquery_credentials import (
    BIGQUERY_SCOPES,
    BIGQUERY_TOKEN_CACHE_KEY,
)
from adk_runtime.tools import ToolContext
from adk_runtime.tools._google_credentials import (
    BaseGoogleCredentialsConfig,
    GoogleCredentialsManager,
)
from adk_runtime.tools.google_tool import GoogleTool
from tests.auth.agents import tool_context
from tests.auth.helpers import (
    CLIENT_ID,
    CLIENT_SECRET,
    REDIRECT_URI,
    authorization_uri,
    code_scheme,
    oauth2_credential,
)
from tests.auth.oauth_server import OAuthServer, running_oauth_server

pytestmark = pytest.mark.usefixtures("blockbuster")


@pytest.fixture
def oauth_server() -> Iterator[OAuthServer]:
    """The loopback OAuth2 server, with the agent's confidential client."""
    with running_oauth_server(clients={CLIENT_ID: CLIENT_SECRET}) as server:
        yield server


class Settings(BaseModel):
    max_rows: int = 10


Seen = list[tuple[Any, Any]]


def query_tool(seen: Seen, **kwargs: Any) -> GoogleTool:
    def run_query(
        sql: str, credentials: Any, settings: Any, tool_context: ToolContext
    ) -> dict[str, Any]:
        """Run a query."""
        seen.append((credentials, settings))
        return {"sql": sql, "token": getattr(credentials, "token", None)}

    return GoogleTool(run_query, **kwargs)


def user_config() -> BigQueryCredentialsConfig:
    return BigQueryCredentialsConfig(client_id=CLIENT_ID, client_secret=CLIENT_SECRET)


def test_the_model_sees_neither_credentials_nor_settings() -> None:
    tool = query_tool([], credentials_config=user_config(), tool_settings=Settings())

    declaration = tool._get_declaration()

    assert declaration is not None
    schema = declaration.parameters_json_schema
    assert isinstance(schema, dict)
    assert set(schema["properties"]) == {"sql"}


def test_a_config_takes_exactly_one_source() -> None:
    token = google.oauth2.credentials.Credentials(token="t")  # type: ignore[no-untyped-call]
    with pytest.raises(ValueError, match="credentials is set"):
        BaseGoogleCredentialsConfig(credentials=token, client_id="c")
    with pytest.raises(ValueError, match="external_access_token_key is set"):
        BaseGoogleCredentialsConfig(external_access_token_key="k", client_secret="s")
    with pytest.raises(ValueError, match="one source"):
        BaseGoogleCredentialsConfig(client_id="c")
    assert user_config().scopes == BIGQUERY_SCOPES


async def test_without_a_sign_in_the_tool_asks_for_one_then_uses_the_answer() -> None:
    seen: Seen = []
    tool = query_tool(seen, credentials_config=user_config(), tool_settings=Settings(max_rows=3))
    context = await tool_context()

    pending = await tool.run_async(args={"sql": "select 1"}, tool_context=context)

    assert isinstance(pending, str)
    assert "sign in" in pending
    assert seen == []
    request = context.actions.requested_auth_configs["call-1"]
    assert CLIENT_SECRET not in json.dumps(request)
    # The user's answer, as the runtime stores it for the invocation once exchanged.
    manager = GoogleCredentialsManager(user_config())
    answered = manager._auth_config().model_copy(
        update={
            "exchanged_auth_credential": oauth2_credential(
                access_token="user-token", refresh_token="user-refresh"
            )
        }
    )
    await AuthHandler(answered).parse_and_store_auth_response(context.state)

    result = await tool.run_async(args={"sql": "select 1"}, tool_context=context)

    assert result == {"sql": "select 1", "token": "user-token"}
    [(credentials, settings)] = seen
    assert isinstance(credentials, google.oauth2.credentials.Credentials)
    assert credentials.refresh_token == "user-refresh"
    assert settings == Settings(max_rows=3)
    cached = json.loads(context.state[BIGQUERY_TOKEN_CACHE_KEY])
    assert cached["token"] == "user-token"
    assert "client_secret" not in cached


async def test_an_expired_user_credential_is_refreshed_at_its_token_uri(
    oauth_server: OAuthServer,
) -> None:
    signed_in = await OAuth2CredentialExchanger().exchange(
        oauth2_credential(
            redirect_uri=REDIRECT_URI,
            state="state-123",
            auth_response_uri=await oauth_server.sign_in_async(authorization_uri(oauth_server)),
        ),
        code_scheme(oauth_server),
    )
    assert signed_in.credential.oauth2 is not None
    expired = google.oauth2.credentials.Credentials(  # type: ignore[no-untyped-call]
        token="expired",
        refresh_token=signed_in.credential.oauth2.refresh_token,
        token_uri=oauth_server.token_endpoint,
        client_id=CLIENT_ID,
        client_secret=CLIENT_SECRET,
        expiry=datetime.datetime(2020, 1, 1),
    )
    config = BaseGoogleCredentialsConfig(credentials=expired)
    seen: Seen = []

    result = await query_tool(seen, credentials_config=config).run_async(
        args={"sql": "select 2"}, tool_context=await tool_context()
    )

    assert "token" in result, result
    token = result["token"]
    assert token != "expired"
    assert oauth_server.token_info(token) is not None
    assert oauth_server.token_request_count("refresh_token", ok=True) == 1


async def test_an_unreadable_cache_is_ignored_and_the_user_asked_again() -> None:
    context = await tool_context()
    context.state[BIGQUERY_TOKEN_CACHE_KEY] = "{not json"
    manager = GoogleCredentialsManager(user_config())

    assert await manager.get_valid_credentials(context) is None
    assert list(context.actions.requested_auth_configs) == ["call-1"]


async def test_an_external_access_token_is_read_from_the_state() -> None:
    config = BaseGoogleCredentialsConfig(external_access_token_key="google_token")
    context = await tool_context()
    manager = GoogleCredentialsManager(config)

    with pytest.raises(ValueError, match="google_token"):
        await manager.get_valid_credentials(context)
    context.state["google_token"] = "app-token"
    credentials = await manager.get_valid_credentials(context)

    assert credentials is not None
    assert credentials.token == "app-token"
    assert context.actions.requested_auth_configs == {}


class ServiceIdentity(google.auth.credentials.Credentials):
    """A non-user credential whose refresh records the thread it ran in."""

    def __init__(self, fail: bool = False) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.fail = fail
        self.refreshed_in: list[str] = []

    def refresh(self, request: Any) -> None:
        self.refreshed_in.append(threading.current_thread().name)
        if self.fail:
            raise RuntimeError("metadata server unreachable")
        self.token = "service-token"


@pytest.mark.parametrize("fail", [False, True])
async def test_a_configured_identity_is_refreshed_in_a_worker_thread(fail: bool) -> None:
    identity = ServiceIdentity(fail=fail)
    context = await tool_context()
    manager = GoogleCredentialsManager(BaseGoogleCredentialsConfig(credentials=identity))

    credentials = await manager.get_valid_credentials(context)

    assert credentials is identity
    assert len(identity.refreshed_in) == 1
    assert identity.refreshed_in[0] != threading.main_thread().name
    assert identity.token == (None if fail else "service-token")
    assert context.actions.requested_auth_configs == {}


async def test_a_failure_is_answered_as_an_error_status() -> None:
    def broken(credentials: Any) -> None:
        """Fail."""
        raise RuntimeError("quota exceeded")

    config = BaseGoogleCredentialsConfig(credentials=ServiceIdentity())
    tool = GoogleTool(broken, credentials_config=config)

    result = await tool.run_async(args={}, tool_context=await tool_context())

    assert result == {"status": "ERROR", "error_details": "quota exceeded"}
    assert tool._detect_error_in_response(result) == "TOOL_ERROR"


async def test_without_a_config_the_function_gets_no_credentials() -> None:
    seen: Seen = []

    result = await query_tool(seen).run_async(args={"sql": "s"}, tool_context=await tool_context())

    assert result == {"sql": "s", "token": None}
    assert seen == [(None, None)]
