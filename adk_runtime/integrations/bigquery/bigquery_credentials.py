"""BigQueryCredentialsConfig: Google credentials for tools that call BigQuery."""

from __future__ import annotations

from pydantic import model_validator

from adk_runtime.tools._google_credentials import BaseGoogleCredentialsConfig

__all__ = [
    "BIGQUERY_DEFAULT_SCOPE",
    "BIGQUERY_SCOPES",
    "BIGQUERY_TOKEN_CACHE_KEY",
    "BigQueryCredentialsConfig",
]

BIGQUERY_TOKEN_CACHE_KEY = "bigquery_token_cache"
"""The session-state key a user's BigQuery credential is cached under."""

BIGQUERY_SCOPES = [
    "https://www.googleapis.com/auth/bigquery",
    "https://www.googleapis.com/auth/dataplex.read-write",
]
"""The scopes a user grants when the config names none."""

BIGQUERY_DEFAULT_SCOPE = ["https://www.googleapis.com/auth/bigquery"]


class BigQueryCredentialsConfig(BaseGoogleCredentialsConfig):
    """Google credentials for BigQuery: BigQuery's scopes by default, its own cache key."""

    @model_validator(mode="after")
    def _bigquery_defaults(self) -> BigQueryCredentialsConfig:
        if not self.scopes and self.credentials is None and not self.external_access_token_key:
            self.scopes = list(BIGQUERY_SCOPES)
        self._token_cache_key = BIGQUERY_TOKEN_CACHE_KEY
        return self
