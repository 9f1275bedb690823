"""The context a workflow node runs with: google-adk 2's ``Context`` seen from a node."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from adk_runtime.core.tool_context import ToolContext
from adk_runtime.sessions._validation import validate_id

if TYPE_CHECKING:
    from adk_runtime.core.invocation_context import InvocationContext
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
        state_schema: The schema its ``ctx.state`` writes must fit: the node's own, or the
            nearest enclosing node's (None: unchecked).
        output: Set it to give the run its output without yielding one (committed when
            the run ends).
        route: Set it to give the run its route (committed with the run's next event, or
            when it ends).
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
        state_schema: type[BaseModel] | None = None,
    ) -> None:
        """The context of ``node``'s run at ``node_path``; ``state_schema`` checks its writes."""
        super().__init__(invocation_context, resume_inputs=resume_inputs, state_schema=state_schema)
        self.state_schema = state_schema
        self.node = node
        self.node_path = node_path
        self.run_id = run_id
        self.attempt_count = attempt_count
        self.event_author = event_author
        self._run = run
        self._delegated_output: Any = None
        self._output_delegated = False
        self._output_for: list[str] = []
        self.output: Any = None
        self.route: Any = None
        self._children: dict[int, BaseNode] = {}
        self._child_runs: dict[str, int] = {}
        self._reserved: set[tuple[str, str]] = set()

    async def run_node(
        self,
        node: Any,
        node_input: Any = None,
        *,
        use_as_output: bool = False,
        run_id: str | None = None,
        use_sub_branch: bool = False,
        override_branch: str | None = None,
        override_isolation_scope: str | None = None,
        raise_on_wait: bool = False,
    ) -> Any:
        """Run ``node`` (a node, function, agent or tool) as a child of this run; its output.

        The child's path is ``<this path>/<name>@<run id>`` (run ids count 1, 2... per name in
        this run, or ``run_id``), so when this run is run again (a resumed invocation, an
        answered question) a child whose output is committed returns it without running.
        Always ``await`` it directly.

        Args:
            node: What to run.
            node_input: Its input.
            use_as_output: The child's output is this run's output (an output this run then
                returns or yields is not committed again: it is the child's).
            run_id: The child's run id instead of the next number (not all digits, unless
                taken with :meth:`next_run_ids`).
            use_sub_branch: An agent child runs on a branch of this run's own (its path's
                node names and run id), so it does not see its other runs' conversations.
            override_branch: An agent child keeps its conversation on this branch instead
                of its path's (with ``use_sub_branch``: on a sub-branch of it).
            override_isolation_scope: An agent child's events are in this isolation scope
                (a task agent's default: its path).
            raise_on_wait: A child that can wait for its output (a workflow, or a node
                with ``wait_for_output``) and ended without one stops this run there, as a
                child that asks the user something always does, instead of returning None:
                this run ends with no output (a successor gets None; a ``wait_for_output``
                run keeps waiting), and runs again when the invocation does.

        Raises:
            WorkflowDataError: ``use_as_output`` a second time in one run, or a ``run_id`` of
                digits only, longer than 64 characters, or with ``/``, ``@`` or whitespace.
            WorkflowConfigurationError: A branch or scope setting for a child that is not an
                agent (only an agent's conversation is kept on a branch here).
            DynamicNodeFailError: The child failed (its retries spent); ``.error`` is why.
        """
        from adk_runtime.workflow._errors import (
            DynamicNodeFailError,
            NodeInterrupted,
            WorkflowDataError,
        )
        from adk_runtime.workflow._run import Place

        if use_as_output and self._output_delegated:
            raise WorkflowDataError(
                f"Node {self.node.name!r} already took a child's output as its own: "
                "use_as_output=True may be given once per run."
            )
        child = self._child(node)
        if use_sub_branch or override_branch is not None or override_isolation_scope is not None:
            child = _on_branch(child, use_sub_branch, override_branch, override_isolation_scope)
        if run_id is None:
            [run_id] = self.next_run_ids(child, 1)
        elif (child.name, run_id) in self._reserved:
            self._reserved.discard((child.name, run_id))
        else:
            _check_run_id(run_id)
        path = f"{self.node_path}/{child.name}@{run_id}"
        output_for = (self.node_path, *self._output_for) if use_as_output else ()
        place = Place(path, self.event_author, output_for, self.state_schema)
        try:
            result = await self._run.advance(child, node_input, place)
        except Exception as error:
            raise DynamicNodeFailError(
                message=f"Child node {child.name!r} ({path}) failed: {type(error).__name__}.",
                error=error,
                error_node_path=path,
            ) from error
        if result.interrupts:
            raise NodeInterrupted(result.interrupts)
        if raise_on_wait and not result.has_output and _may_wait(child):
            raise NodeInterrupted([])  # ends this run where it is, with nothing to answer
        if use_as_output:
            self._output_delegated, self._delegated_output = True, result.output
        return result.output

    def next_run_ids(self, node: Any, count: int) -> list[str]:
        """Take the next ``count`` run ids of ``node``'s children, for ``run_node(run_id=...)``.

        For starting several children at once in a known order (``parallel_worker``): the
        ids are numbered in the order taken, whatever order the children start in.
        """
        child = self._child(node)
        first = self._child_runs.get(child.name, 0) + 1
        self._child_runs[child.name] = first + count - 1
        ids = [str(number) for number in range(first, first + count)]
        self._reserved.update((child.name, run_id) for run_id in ids)
        return ids

    def _child(self, node: Any) -> BaseNode:
        from adk_runtime.workflow._node import build_node

        child = self._children.get(id(node))
        if child is None:
            child = self._children[id(node)] = build_node(node)
        return child

    @property
    def workflow_run(self) -> WorkflowRun:
        """The invocation's workflow run (how events reach the Runner)."""
        return self._run


def _may_wait(child: BaseNode) -> bool:
    """Whether ``child`` can end a run waiting for its output (google-adk's test)."""
    from adk_runtime.workflow._workflow import Workflow

    return isinstance(child, Workflow) or child.wait_for_output


def _on_branch(
    child: BaseNode, sub_branch: bool, branch: str | None, scope: str | None
) -> BaseNode:
    """``child``, an agent node, set to run on the branch and in the scope given."""
    from adk_runtime.workflow._agent_node import AgentNode
    from adk_runtime.workflow._errors import WorkflowConfigurationError

    if not isinstance(child, AgentNode):
        raise WorkflowConfigurationError(
            f"use_sub_branch, override_branch and override_isolation_scope apply to an agent "
            f"child; {child.name!r} is a {type(child).__name__} (only an agent's "
            "conversation is kept on a branch)."
        )
    for what, value in (("override_branch", branch), ("override_isolation_scope", scope)):
        if value is not None:
            validate_id(value, what)
    update: dict[str, Any] = {"branch_per_run": child.branch_per_run or sub_branch}
    if branch is not None:
        update["branch"] = branch
    if scope is not None:
        update["isolation_scope"] = scope
    return child.model_copy(update=update)


_RUN_ID_MAX = 64


def _check_run_id(run_id: str) -> None:
    from adk_runtime.workflow._errors import WorkflowDataError

    if run_id.isdigit():
        raise WorkflowDataError(
            f"run_id {run_id!r} must contain non-numeric characters: numbers are the run ids "
            "counted for children without one."
        )
    if not run_id or len(run_id) > _RUN_ID_MAX or any(c in "/@" or c.isspace() for c in run_id):
        raise WorkflowDataError(
            f"A run_id has 1 to {_RUN_ID_MAX} characters and no '/', '@' or whitespace: it "
            "is a segment of the node's path."
        )
