"""The errors of workflow graphs (``google.adk.workflow`` → ``adk_runtime.workflow``)."""

from __future__ import annotations

from adk_runtime.errors import AdkRuntimeError, ConfigurationError

__all__ = ["NodeTimeoutError", "WorkflowConfigurationError", "WorkflowDataError"]


class WorkflowConfigurationError(ConfigurationError, ValueError):
    """A workflow, node or edge is declared in a way that cannot run.

    Raised when the graph is built, before anything runs; a ``ValueError`` as in google-adk.
    """


class WorkflowDataError(AdkRuntimeError, ValueError):
    """A value produced while the workflow runs does not fit where it goes.

    A node's input or output that fails its schema, a route of the wrong type, or a second
    output from one node run. The graph is fine; this run's data is not.
    """


class NodeTimeoutError(AdkRuntimeError, TimeoutError):
    """A node ran longer than its ``timeout``; like any failure it can be retried.

    Attributes:
        node_name: The node that timed out.
        timeout: Its timeout, in seconds.
    """

    def __init__(self, *, node_name: str, timeout: float) -> None:
        """Say which node ran out of time, and after how long."""
        self.node_name = node_name
        self.timeout = timeout
        super().__init__(f"Node '{node_name}' timed out after {timeout} seconds.")
