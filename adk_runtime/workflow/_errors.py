"""The errors of workflow graphs (``google.adk.workflow`` → ``adk_runtime.workflow``)."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

from adk_runtime.errors import AdkRuntimeError, ConfigurationError

__all__ = [
    "DynamicNodeFailError",
    "NodeTimeoutError",
    "SchemaMismatchError",
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


class SchemaMismatchError(WorkflowDataError, ValidationError):
    """A node's input or output, or a function node's argument, does not fit its type.

    Also a pydantic ``ValidationError``, as google-adk raises there: ``errors()`` gives
    pydantic's details. The message names the node and what is wrong, never the values.
    """

    message: str

    @classmethod
    def of(cls, message: str, error: ValidationError) -> SchemaMismatchError:
        """The error ``message`` says, carrying the details of pydantic's ``error``."""
        details = error.errors(include_url=False)
        try:
            made = cls.from_exception_data(error.title, _init_details(details, False), "python")
        except (KeyError, TypeError, ValueError):  # a custom error type pydantic cannot remake
            made = cls.from_exception_data(error.title, _init_details(details, True), "python")
        made.message = message
        return made

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r})"


def _init_details(details: list[Any], as_custom: bool) -> list[InitErrorDetails]:
    made: list[InitErrorDetails] = []
    for detail in details:
        kind: Any = detail["type"]
        if as_custom:
            kind = PydanticCustomError(kind, detail["msg"].replace("{", "{{").replace("}", "}}"))
        entry: InitErrorDetails = {"type": kind, "loc": detail["loc"], "input": detail["input"]}
        if "ctx" in detail and not as_custom:
            entry["ctx"] = detail["ctx"]
        made.append(entry)
    return made


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
