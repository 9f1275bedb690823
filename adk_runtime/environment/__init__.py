"""Execution environments: a working directory where commands run and files are read/written.

``google.adk.environment`` → here. :class:`LocalEnvironment` runs shell commands as local
subprocesses; ``EnvironmentToolset`` (``adk_runtime.tools.environment``) offers one to a model.
"""

from adk_runtime.environment._base_environment import BaseEnvironment, ExecutionResult
from adk_runtime.environment._local_environment import LocalEnvironment

__all__ = ["BaseEnvironment", "ExecutionResult", "LocalEnvironment"]
