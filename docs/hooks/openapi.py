"""MkDocs hook: the HTTP API reference, rendered from the server app's OpenAPI schema.

A page holding the line ``[OAD(adk_runtime.server)]`` gets, in its place, the Markdown that
essentials-openapi (the renderer of neoteroi-mkdocs' OpenAPI plugin) writes for the schema
``adk_runtime.server.create_app`` serves at ``/openapi.json``: every route, its parameters,
request and response bodies, and the schemas they use. The schema is built in this process
from the code, so the page never lags behind the routes.
"""

from __future__ import annotations

from typing import Any

MARKER = "[OAD(adk_runtime.server)]"


def openapi_schema() -> dict[str, Any]:
    """The OpenAPI schema of the HTTP API (the demo agent on an in-memory store)."""
    from adk_runtime.demo import root_agent
    from adk_runtime.server import create_app
    from adk_runtime.sessions import InMemorySessionService

    app = create_app(agent=root_agent, session_service=InMemorySessionService())
    return app.openapi()


def on_page_markdown(markdown: str, **_kwargs: Any) -> str:
    """Replace the marker line by the rendered schema."""
    if MARKER not in markdown:
        return markdown
    from openapidocs.mk.v3 import OpenAPIV3DocumentationHandler

    rendered = OpenAPIV3DocumentationHandler(openapi_schema(), style="MKDOCS").write()
    return markdown.replace(MARKER, rendered)
