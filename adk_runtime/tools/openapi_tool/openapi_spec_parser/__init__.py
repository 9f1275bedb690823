"""The OpenAPI toolset and its REST tool (``google.adk.tools.openapi_tool.openapi_spec_parser``)."""

from adk_runtime.tools.openapi_tool.openapi_spec_parser.openapi_toolset import OpenAPIToolset
from adk_runtime.tools.openapi_tool.openapi_spec_parser.rest_api_tool import (
    OperationEndpoint,
    RestApiTool,
)

__all__ = ["OpenAPIToolset", "OperationEndpoint", "RestApiTool"]
