"""google-adk's path (deprecated); the name lives in :mod:`adk_runtime.models._capabilities`."""

from adk_runtime.models._capabilities import can_use_output_schema_with_tools

__all__ = ["can_use_output_schema_with_tools"]
