"""The context a workflow node runs with: google-adk 2's ``Context`` seen from a node."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from adk_runtime.tools.tool_context import ToolContext

if TYPE_CHECKING:
    from adk_runtime.agents.invocation_context import InvocationContext
    from adk_runtime.workflow._base_node import BaseNode
    from adk_runtime.workflow._run import WorkflowRun

__all__ = ["NodeContext"]


class NodeContext(ToolContext):
    """A node run's context (a ``Context``, so callbacks' and tools' helpers work on it).

    State writes (``ctx.state[...] = ...``) are committed with the node's next event: its
    output, or a content-less event when the node ends without one.

    Attributes:
        node: The node running.
        node_path: Where the run sits: ``name@run_id`` segments from the root node down,
            separated by ``/`` (``"pipeline@1/review@2"``); stamped on the run's events.
        run_id: This run's number among the node's runs in its workflow run (``"1"``, ``"2"``
            in a loop...).
        attempt_count: 1 on the first attempt, 2 on the first retry (``RetryConfig``).
        event_author: The author of the events the node makes without one: the name of the
            workflow it runs in.
    """

    def __init__(
        self,
        invocation_context: InvocationContext,
        *,
        run: WorkflowRun,
        node: BaseNode,
        node_path: str,
        run_id: str,
        attempt_count: int = 1,
        event_author: str,
        resume_inputs: dict[str, Any] | None = None,
    ) -> None:
        """The context of ``node``'s run at ``node_path``."""
        super().__init__(invocation_context, resume_inputs=resume_inputs)
        self.node = node
        self.node_path = node_path
        self.run_id = run_id
        self.attempt_count = attempt_count
        self.event_author = event_author
        self._run = run
        self._delegated_output: Any = None
        self._output_delegated = False
        self._output_for: list[str] = []

    @property
    def workflow_run(self) -> WorkflowRun:
        """The invocation's workflow run (how events reach the Runner)."""
        return self._run
