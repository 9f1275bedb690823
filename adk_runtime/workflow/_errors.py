"""The errors of workflow graphs (``google.adk.workflow`` → ``adk_runtime.workflow``)."""

from __future__ import annotations

from adk_runtime.errors import AdkRuntimeError, ConfigurationError

__all__ = [
    "DynamicNodeFailError",
    "NodeTimeoutError",
    "WorkflowConfigurationError",
    "WorkflowDataError",
]


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


class DynamicNodeFailError(AdkRuntimeError):
    """A child run (``await ctx.run_node(...)``) failed; the parent may catch it and go on.

    Attributes:
        error: The child's error.
        error_node_path: The path of the child run that failed.
    """

    def __init__(self, *, message: str, error: Exception, error_node_path: str) -> None:
        """Wrap the child's ``error``."""
        super().__init__(message)
        self.error = error
        self.error_node_path = error_node_path


class NodeInterrupted(BaseException):
    """Unwinds a node whose dynamic child (``ctx.run_node``) is waiting for the user.

    A ``BaseException`` so that the node's own ``except Exception`` does not swallow it; the
    node's run ends there, waiting with its child's questions.
    """

    def __init__(self, interrupts: list[str]) -> None:
        """Carry the child's unanswered request ids."""
        super().__init__(interrupts)
        self.interrupts = interrupts
