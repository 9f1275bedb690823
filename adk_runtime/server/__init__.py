"""The HTTP API (google-adk ``api_server`` routes) on FastAPI; install the ``server`` extra.

``create_app(agent=..., session_service=...)`` returns the FastAPI application that
``adk-runtime serve`` runs with uvicorn.
"""

from adk_runtime.server.app import create_app

__all__ = ["create_app"]
