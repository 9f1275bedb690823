"""A workflow node the model may call like a function (google-adk 2's ``tools=[workflow]``)."""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import AsyncGenerator, Callable
from typing import TYPE_CHECKING, Any

import pydantic
from google.genai import types

from adk_runtime.platform import uuid as platform_uuid
from adk_runtime.tools._declaration import Signature, function_declaration, resolved_hints
from adk_runtime.tools._forwarding_artifact_service import ForwardingArtifactService
from adk_runtime.tools.base_tool import BaseTool
from adk_runtime.utils._problems import problems
from adk_runtime.workflow._base_node import BaseNode
from adk_runtime.workflow._errors import WorkflowConfigurationError, WorkflowDataError
from adk_runtime.workflow._function_node import _CONTEXT_NAMES, FunctionNode
from adk_runtime.workflow._join_node import JoinNode
from adk_runtime.workflow._parallel_worker import ParallelWorker
from adk_runtime.workflow._workflow import Workflow

if TYPE_CHECKING:
    from adk_runtime.tools.tool_context import ToolContext
    from adk_runtime.workflow._context import NodeContext

__all__ = ["NodeTool"]

_REQUEST = "request"
_CALL = "node_tool_call"  # the root node of a call's own run


class NodeTool(BaseTool):
    """Runs a workflow node (a ``Workflow``, a function node, any node) on the model's call.

    The arguments are declared from the node: its ``input_schema``; for a function node, its
    function's parameters (filled from the call's arguments); for a workflow, the schema of
    the nodes its ``START`` leads to (they must agree). A schema that is not an object is
    declared as one ``request`` argument. Arguments that do not fit are answered with an
    ``{"error": ...}`` the model can act on, and the node does not run.

    The node runs as an ``AgentTool``'s agent does: in a fresh in-memory session seeded with a
    copy of the caller's state, its state changes coming back through the tool context (they
    are committed with the function response, atomically with the answer) and its artifacts
    saved to the caller's session. The answer is the node's output (``{"result": None}``
    without one). A node that asks the user something is answered with an error: its session
    is discarded, so nobody could answer (put the workflow in the graph instead). A node's
    error is raised as the tool's own, for ``on_tool_error_callback``.
    """

    def __init__(
        self, node: BaseNode, name: str | None = None, description: str | None = None
    ) -> None:
        """Wrap ``node``; the tool takes its name and description unless given.

        Raises:
            WorkflowConfigurationError: ``node`` is an agent (make it a sub-agent or an
                ``AgentTool``), or its input cannot be declared (give it an ``input_schema``).
        """
        if not isinstance(node, BaseNode):  # an agent is not a node here
            raise WorkflowConfigurationError(
                f"NodeTool wraps a workflow node, not a {type(node).__name__}: an agent is a "
                "sub-agent or an AgentTool."
            )
        if isinstance(node, FunctionNode):  # its parameters come from the call's arguments
            node = node.model_copy(update={"parameter_binding": "node_input"})
        resolved, schema = _input_type(node)
        if not resolved:
            raise WorkflowConfigurationError(
                f"Node {node.name!r} cannot be a tool as it is: what its input is cannot be "
                "told from it. Give it an input_schema."
            )
        self.node = node
        self._parameters, self._wrapped = _parameters(node, schema)
        super().__init__(
            name=name or node.name,
            description=description or node.description or f"Runs the node {node.name}.",
        )

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        declaration = function_declaration(self.name, self.description, self._parameters)
        output_schema = self.node.output_schema
        if output_schema is not None and declaration.parameters_json_schema is not None:
            with contextlib.suppress(pydantic.PydanticUserError):  # a type with no schema
                declaration.response_json_schema = _json_schema(output_schema)
        return declaration

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Run the node on the validated arguments; its output (see the class)."""
        if self._wrapped:
            if _REQUEST not in args:
                return {"error": f"The tool `{self.name}` did not run: it takes `request`."}
            node_input: Any = args[_REQUEST]
        else:
            node_input = dict(args) if self._parameters is not None else None
        try:
            node_input = _checked(self.node, node_input)
        except (pydantic.ValidationError, WorkflowDataError) as error:
            detail = problems(error) if isinstance(error, pydantic.ValidationError) else error
            return {
                "error": f"Invalid arguments for {self.name}: {detail}. Call it again with "
                "arguments that fit."
            }
        return await self._run(node_input, tool_context)

    async def _run(self, node_input: Any, tool_context: ToolContext) -> Any:
        from adk_runtime.runners import Runner
        from adk_runtime.sessions.memory import InMemorySessionService

        ctx = tool_context.invocation_context
        service = InMemorySessionService()
        call = _Call(name=_CALL, node=self.node, value=node_input)  # any tool name will do
        runner = Runner(
            app_name=ctx.app_name,
            node=call,
            session_service=service,
            artifact_service=(
                ForwardingArtifactService(tool_context) if ctx.artifact_service else None
            ),
            memory_service=ctx.memory_service,
            credential_service=ctx.credential_service,
        )
        runner.plugin_manager = ctx.plugin_manager  # shared: the calling Runner closes them
        session = await service.create_session(
            app_name=ctx.app_name,
            user_id=ctx.user_id,
            session_id=platform_uuid.new_uuid(),
            state=tool_context.state.to_dict(),
        )
        message = types.Content(role="user", parts=[types.Part(text=f"Call {self.name}")])
        output: Any = None
        pending: set[str] = set()
        path = f"{_CALL}@1"
        async for event in runner.run_async(
            user_id=ctx.user_id, session_id=session.id, new_message=message
        ):
            tool_context.state.update(event.actions.state_delta)
            pending |= event.long_running_tool_ids or set()
            pending -= {r.id for r in event.get_function_responses() if r.id}
            if event.node_info.path == path and event.output is not None:
                output = event.output
        if pending:
            return {
                "error": f"Node {self.node.name!r} stopped to ask the user something, which a "
                "tool call cannot wait for; put it in the workflow's graph instead."
            }
        return {"result": None} if output is None else output


class _Call(BaseNode):
    """The root of a tool call's run: runs the node on the call's input; its output."""

    node: pydantic.InstanceOf[BaseNode]
    value: Any = None

    async def _run_impl(self, *, ctx: NodeContext, node_input: Any) -> AsyncGenerator[Any, None]:
        output = await ctx.run_node(self.node, self.value, raise_on_wait=True)
        if output is not None:
            yield output


def _input_type(node: BaseNode) -> tuple[bool, Any]:
    """Whether ``node``'s input can be declared, and its type (None: none, or parameters)."""
    if node.input_schema is not None:
        return True, node.input_schema
    if isinstance(node, FunctionNode):
        return _function_input(node)
    if isinstance(node, ParallelWorker):
        resolved, inner = _input_type(node.node)
        if not resolved or inner is None:
            return False, None
        return True, list[inner]  # type: ignore[valid-type]
    if isinstance(node, Workflow):
        return _workflow_input(node)
    return False, None


def _function_input(node: FunctionNode) -> tuple[bool, Any]:
    """A function node takes its ``node_input`` parameter's type, or its other parameters."""
    if "node_input" not in node._signature.parameters:
        return True, None
    hint = resolved_hints(node._func).get("node_input")  # as the node reads it
    if hint in (None, Any, object):
        return False, None
    return True, hint


def _entries(workflow: Workflow) -> list[BaseNode]:
    """The nodes ``START`` hands the workflow's input to (a join only waits for it)."""
    return [
        edge.to_node
        for edge in workflow.graph.edges
        if edge.from_node.name == "__START__" and not isinstance(edge.to_node, JoinNode)
    ]


def _workflow_input(workflow: Workflow) -> tuple[bool, Any]:
    """A workflow takes what the nodes ``START`` leads to take, if they agree."""
    found = [_input_type(entry) for entry in _entries(workflow)]
    if not found or not all(resolved for resolved, _ in found):
        return False, None
    schemas = [schema for _, schema in found if schema is not None]
    if any(schema != schemas[0] for schema in schemas[1:]):
        return False, None
    return True, (schemas[0] if schemas else None)


def _parameters(node: BaseNode, schema: Any) -> tuple[dict[str, Any] | None, bool]:
    """The declared parameters' JSON schema, and whether the input is wrapped in ``request``."""
    if schema is None:
        if isinstance(node, FunctionNode):
            return _signature(node).parameters_json_schema(), False
        return None, False
    declared = _json_schema(schema)
    if declared.get("type") == "object":
        return declared, False
    object_schema = {"type": "object", "properties": {_REQUEST: declared}, "required": [_REQUEST]}
    return object_schema, True


def _signature(node: FunctionNode) -> Signature:
    """The function's parameters as a tool's (its context parameters left out)."""
    try:
        hash(node._func)
    except TypeError:  # a callable object that cannot be a cache key: read it each time
        return _signature_of.__wrapped__(node._func, node.name, node.description)
    return _signature_of(node._func, node.name, node.description)


@functools.lru_cache(maxsize=256)
def _signature_of(func: Callable[..., Any], name: str, description: str) -> Signature:
    """Read once per function, not at every call (it builds a pydantic model)."""
    ignore = [param for param in inspect.signature(func).parameters if param in _CONTEXT_NAMES]
    return Signature(func, name, description, ignore)


def _json_schema(schema: Any) -> dict[str, Any]:
    if isinstance(schema, dict):
        return dict(schema)
    if isinstance(schema, types.Schema):
        return schema.json_schema.model_dump(exclude_none=True)
    return pydantic.TypeAdapter(schema).json_schema()


def _checked(node: BaseNode, value: Any) -> Any:
    """``value`` checked as the node (or, for a workflow, each node ``START`` leads to) would.

    Raises:
        pydantic.ValidationError: It does not fit (a ``SchemaMismatchError`` is one).
        WorkflowDataError: Required arguments are missing.
    """
    if node.input_schema is not None and not isinstance(node.input_schema, dict | types.Schema):
        return node._validate_input(value)
    if isinstance(node, FunctionNode):
        if "node_input" in node._signature.parameters:
            adapter = node._adapters.get("node_input")  # the node's own, from its annotation
            if adapter is not None:
                adapter.validate_python(value)
        elif isinstance(value, dict):
            signature = _signature(node)
            missing = signature.missing(value)
            if missing:
                raise WorkflowDataError(f"missing required arguments: {', '.join(missing)}")
            signature.validate(value)
    if isinstance(node, Workflow):
        for entry in _entries(node):
            _checked(entry, value)
    return value
