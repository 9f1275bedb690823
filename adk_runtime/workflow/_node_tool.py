"""A workflow node the model may call like a function (google-adk 2's ``tools=[workflow]``)."""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import AsyncGenerator, Callable
from typing import TYPE_CHECKING, Any

import pydantic
from google.genai import types

from adk_runtime.agents._generator_tools import PAUSED, RunEvent, call_path, run_caller
from adk_runtime.core.base_tool import BaseTool
from adk_runtime.events import Event
from adk_runtime.events.rewind import live_events
from adk_runtime.tools._declaration import Signature, function_declaration, resolved_hints
from adk_runtime.tools._tool_run import tool_run
from adk_runtime.utils._problems import problems
from adk_runtime.workflow._base_node import BaseNode
from adk_runtime.workflow._errors import WorkflowConfigurationError, WorkflowDataError
from adk_runtime.workflow._function_node import _CONTEXT_NAMES, FunctionNode
from adk_runtime.workflow._join_node import JoinNode
from adk_runtime.workflow._parallel_worker import ParallelWorker
from adk_runtime.workflow._root import as_agent
from adk_runtime.workflow._workflow import Workflow

if TYPE_CHECKING:
    from adk_runtime.core.invocation_context import InvocationContext
    from adk_runtime.core.tool_context import ToolContext
    from adk_runtime.sessions.base import BaseSessionService
    from adk_runtime.sessions.session import Session
    from adk_runtime.workflow._context import NodeContext

__all__ = ["NodeTool", "as_tool"]

_REQUEST = "request"
_CALL = "node_tool_call"  # the root node of a call's own run


class NodeTool(BaseTool):
    """Runs a workflow node (a ``Workflow``, a function node, any node) on the model's call.

    The arguments are declared from the node: its ``input_schema``; for a function node, its
    function's parameters (filled from the call's arguments); for a workflow, the schema of
    the nodes its ``START`` leads to (they must agree). A schema that is not an object is
    declared as one ``request`` argument. Arguments that do not fit are answered with an
    ``{"error": ...}`` the model can act on, and the node does not run.

    The node runs in a session of its own, seeded with a copy of the caller's state; each
    event of its run is committed in the caller's session as it comes (in the caller's
    invocation, in the call's scope, so the calling agent's model never sees it, and on a path
    under the call's, ``<agent>/<tool>@<call id>/...``), with the state the run wrote before
    it; its artifacts are saved to the caller's session. The answer is the node's output
    (``{"result": None}`` without one). A node's error is raised as the tool's own, for
    ``on_tool_error_callback``.

    A node that asks the user something (``RequestInput``), or an agent of the run whose
    long-running tool waits or that asks for a confirmation or a credential, pauses the call
    as a generator tool's question does: the question is committed, the call has no response
    yet and the invocation pauses. The user's answer (a confirmation or credential answer is
    checked first against the stored request of the agent that asked) runs the call again:
    the run is read back from the caller's session and goes on from where it stopped, with
    the answer (nodes that finished do not run again; the agent that asked reads it), on any
    replica, after a restart. A run whose process died goes on the same way when the
    invocation is resumed.
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
        return self._run(node_input, tool_context)  # a generator: the flow commits its events

    async def _run(self, node_input: Any, tool_context: ToolContext) -> AsyncGenerator[Any, None]:
        ctx = tool_context.invocation_context
        call_id = tool_context.function_call_id or ""
        run = _CallRun(ctx, ctx.agent.name, self.name, call_id)
        root = _Call(name=_CALL, node=self.node, value=node_input)  # any tool name will do
        runner, session = await tool_run(tool_context, as_agent(root))
        message, invocation_id = await run.resume(runner.session_service, session, self.name)
        async for event in runner.run_async(
            user_id=ctx.user_id,
            session_id=session.id,
            new_message=message,
            invocation_id=invocation_id,
        ):
            tool_context.state.update(event.actions.state_delta)
            if call_id and event.author != "user":
                yield RunEvent(run.stored(event))
        done = await runner.session_service.get_session(
            app_name=ctx.app_name, user_id=ctx.user_id, session_id=session.id
        )
        events = done.events if done is not None else []
        questions = _waiting(events)
        if questions and not call_id:
            yield {
                "error": f"Node {self.node.name!r} stopped to wait for the user, which a tool "
                "call without an id cannot wait for; put it in the workflow's graph instead."
            }
            return
        if questions:
            yield PAUSED  # its question is committed: the user's answer runs the call again
            return
        output = next(
            (
                event.output
                for event in reversed(events)
                if event.node_info.path == f"{_CALL}@1" and event.output is not None
            ),
            None,
        )
        yield {"result": None} if output is None else output


def _waiting(events: list[Event]) -> set[str]:
    """The run's calls still waiting for the client.

    A node's question, an agent's long-running tool, a confirmation or a credential request.
    """
    answered = {r.id for event in events for r in event.get_function_responses() if r.id}
    waiting: set[str] = set()
    for event in events:
        waiting |= (event.long_running_tool_ids or set()) - answered
    return waiting


class _CallRun:
    """A call's run as the calling session keeps it: its events under the call's path.

    Each event of the run is committed in the caller's invocation, in the call's scope (its
    own scope, if it has one, after the call's id) and with its path (and the paths it is the
    output of) under ``where``; so the calling agent never sees it, and the call, run again,
    reads its run back and goes on from there.
    """

    def __init__(
        self, ctx: InvocationContext, agent_name: str, tool_name: str, call_id: str
    ) -> None:
        self.ctx = ctx
        self.agent_name = agent_name
        self.call_id = call_id
        self.where = call_path(agent_name, tool_name, call_id)

    async def resume(
        self, service: BaseSessionService, session: Session, tool_name: str
    ) -> tuple[types.Content | None, str | None]:
        """What to run the run's own ``session`` with: the message, the invocation.

        A first run starts with a message naming the tool. A call that ran before (it waited
        for the user, or its process died) gets its run back into ``session``, and goes on
        with the answers it has not seen; without any, in the invocation its process left
        open.
        """
        ctx = self.ctx
        message = types.Content(role="user", parts=[types.Part(text=f"Call {tool_name}")])
        logged, answers = self.log(ctx.session.events) if self.call_id else ([], [])
        if not logged:
            return message, None
        first = Event(invocation_id=ctx.invocation_id, author="user", content=message)
        for event in [first, *logged]:
            await service.append_event(session, event)
        if answers:
            return types.Content(role="user", parts=answers), None
        async with service.claim_session(
            app_name=ctx.app_name,
            user_id=ctx.user_id,
            session_id=session.id,
            invocation_id=ctx.invocation_id,
        ):
            pass  # released unfinished: the invocation stays open, as a crash leaves it
        return None, ctx.invocation_id

    def stored(self, event: Event) -> Event:
        """``event`` (of the run's own session) as the calling session keeps it."""
        asks = (event.long_running_tool_ids or set()) & {
            call.id for call in event.get_function_calls()
        }
        scope = event.isolation_scope
        info = event.node_info
        return event.model_copy(
            update={
                "invocation_id": self.ctx.invocation_id,
                "isolation_scope": self.call_id if scope is None else f"{self.call_id}/{scope}",
                # what the user's answer can come back to this call for
                "long_running_tool_ids": asks or None,
                # its writes came through the tool context: committed with it
                "actions": event.actions.model_copy(
                    update={"state_delta": {}, "artifact_delta": {}}
                ),
                "node_info": info.model_copy(
                    update={
                        "path": f"{self.where}/{info.path}",
                        "output_for": None
                        if info.output_for is None
                        else [f"{self.where}/{path}" for path in info.output_for],
                    }
                ),
            }
        )

    def log(self, events: list[Event]) -> tuple[list[Event], list[types.Part]]:
        """The run's events as its own session held them, and the answers it has not seen.

        The user's answers to the run's questions are put back where they came; those after
        the run's last event are the ones it has not seen yet.
        """
        logged: list[Event] = []
        asked: set[str] = set()
        answers: list[types.Part] = []
        events = live_events(events)  # what a rewind cancelled is not the run's
        for event in events[self._called_at(events) + 1 :]:
            if event.author == "user":
                answers += [
                    part
                    for part in (event.content.parts if event.content else None) or []
                    if part.function_response is not None and part.function_response.id in asked
                ]
                continue
            if run_caller(event) != (self.agent_name, self.call_id):
                continue
            if not event.node_info.path.startswith(self.where + "/"):
                continue  # another tool's call with the same id
            if answers:
                content = types.Content(role="user", parts=answers)
                answer = Event(invocation_id=event.invocation_id, author="user", content=content)
                logged.append(answer)
                answers = []
            logged.append(self.restored(event))
            asked |= event.long_running_tool_ids or set()
        return logged, answers

    def _called_at(self, events: list[Event]) -> int:
        """Where the model made this call: its run is after (a call id may come again)."""
        scope = self.ctx.isolation_scope
        for index in range(len(events) - 1, -1, -1):
            event = events[index]
            if (
                event.author == self.agent_name
                and event.isolation_scope == scope
                and any(call.id == self.call_id for call in event.get_function_calls())
            ):
                return index
        return len(events)  # not stored (a call made by hand): nothing of it ran yet

    def restored(self, event: Event) -> Event:
        """A stored event of the run as the run's own session held it (its writes aside)."""
        prefix = self.where + "/"
        info = event.node_info
        return event.model_copy(
            update={
                "isolation_scope": (event.isolation_scope or "").partition("/")[2] or None,
                "node_info": info.model_copy(
                    update={
                        "path": info.path.removeprefix(prefix),
                        "output_for": None
                        if info.output_for is None
                        else [path.removeprefix(prefix) for path in info.output_for],
                    }
                ),
            }
        )


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


def as_tool(tool: Any) -> Any:
    """``tool`` for an agent's tools: a node is offered as a :class:`NodeTool` (google-adk 2)."""
    return NodeTool(tool) if isinstance(tool, BaseNode) else tool
