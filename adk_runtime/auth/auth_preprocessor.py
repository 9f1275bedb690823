"""google-adk's path; the step lives in :mod:`adk_runtime.flows.llm_flows._auth_preprocessor`."""

from adk_runtime.agents._auth import TOOLSET_AUTH_CREDENTIAL_ID_PREFIX
from adk_runtime.flows.llm_flows._auth_preprocessor import request_processor

__all__ = ["TOOLSET_AUTH_CREDENTIAL_ID_PREFIX", "request_processor"]
