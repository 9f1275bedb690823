"""BigQuery: only the credentials config (``BigQueryCredentialsConfig``) for ``GoogleTool``.

google-adk's BigQuery toolset and skill are not here (Google Cloud services are out of
scope); write BigQuery functions of your own as ``GoogleTool``s with this config.
"""

from __future__ import annotations

from adk_runtime.integrations.bigquery.bigquery_credentials import BigQueryCredentialsConfig

__all__ = ["BigQueryCredentialsConfig"]
