"""EnvironmentToolset: a model runs commands and reads/edits files in an environment.

``google.adk.tools.environment`` → here.
"""

from adk_runtime.tools.environment._environment_toolset import EnvironmentToolset

__all__ = ["EnvironmentToolset"]
