"""Tools from an OpenAPI 3 document (``google.adk.tools.openapi_tool`` → here).

``OpenAPIToolset(spec_str=..., spec_str_type="yaml")`` turns each operation into a
``RestApiTool``; see :mod:`.openapi_spec_parser.openapi_toolset`.
"""

from adk_runtime.tools.openapi_tool.openapi_spec_parser import OpenAPIToolset, RestApiTool

__all__ = ["OpenAPIToolset", "RestApiTool"]
