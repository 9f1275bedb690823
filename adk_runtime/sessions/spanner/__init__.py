"""Sessions on Cloud Spanner (``spanner:///projects/P/instances/I/databases/D``)."""

from adk_runtime.sessions.spanner._schema import SchemaStatus
from adk_runtime.sessions.spanner.service import SpannerSessionService

__all__ = ["SchemaStatus", "SpannerSessionService"]
