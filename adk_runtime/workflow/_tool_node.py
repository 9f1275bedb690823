"""A tool as a workflow node: called with the node's input as its arguments."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any

from google.genai import types
from pydantic import BaseModel, InstanceOf

from adk_runtime import telemetry
from adk_runtime.agents._generator_tools import PAUSED, RunEvent, closing_items, is_generator
from adk_runtime.core.base_tool import BaseTool
from adk_runtime.events.event import Event
from adk_runtime.events.request_input import RequestInput
from adk_runtime.events.tool_confirmation import ToolConfirmation
from adk_runtime.utils.content_utils import extract_text_from_content
from adk_runtime.workflow._base_node import BaseNode, to_json_value
from adk_runtime.workflow._errors import WorkflowDataError
from adk_runtime.workflow._function_node import confirmation_id, parse_confirmation
from adk_runtime.workflow._interrupts import node_request_id
from adk_runtime.workflow._node_auth import credential_request_event, take_credential_answer

if TYPE_CHECKING:
    from adk_runtime.workflow._context import NodeContext

__all__ = ["ToolNode"]


class ToolNode(BaseNode):
    """Calls ``tool`` with the node's input as its arguments; the result is the output.

    The input is a dict of arguments, None (no arguments), a pydantic model (its fields),
    JSON text of a dict, or (for a tool with one parameter, or one required parameter) that
    parameter's value; a required parameter missing from it is taken from the session
    state when it holds one under that name. The tool's ``tool_context`` is the node's
    context (its state writes are committed with the output), with a ``function_call_id``
    stable for the run. Plugins' before, after and on-error tool callbacks run around it,
    as for an agent's tools.

    A tool that asks the user pauses the node, which runs the tool again with the answer
    (``rerun_on_resume`` is True): a confirmation (``require_confirmation``, or
    ``tool_context.request_confirmation()``) is a question with id
    ``wf_tool_confirmation:<path>`` whose answer is a ``ToolConfirmation``, set on
    ``tool_context.tool_confirmation``; a credential (``tool_context.request_credential``)
    is an ``adk_request_credential`` call with id ``wf_auth:<path>``, as a function node's
    ``auth_config`` asks, and ``tool_context.get_auth_response`` returns it. A generator
    tool's events, questions (``RequestInput``, answered in ``tool_context.resume_inputs``)
    and one output are the node's.
    """

    tool: InstanceOf[BaseTool]
    rerun_on_resume: bool = True

    def __init__(self, *, tool: BaseTool, name: str | None = None, **fields: Any) -> None:
        """Wrap ``tool``; the node takes its name and description unless given."""
        fields.setdefault("description", getattr(tool, "description", "") or "")
        fields.update(tool=tool, name=name or getattr(tool, "name", None))
        super().__init__(**fields)

    async def _run_impl(self, *, ctx: NodeContext, node_input: Any) -> AsyncGenerator[Any, None]:
        args = self._arguments(ctx, node_input)
        call_id = _call_id(ctx.node_path)
        ctx.function_call_id = call_id
        question = confirmation_id(ctx.node_path)
        confirmed = question in ctx.resume_inputs
        if confirmed:
            ctx.tool_confirmation = parse_confirmation(self.name, ctx.resume_inputs[question])
        attempt = await take_credential_answer(ctx)
        response = await self._call(ctx, args)
        if is_generator(response):  # its events, questions and output are the node's
            async for item in self._driven(ctx, args, response):
                yield item
            return
        requested = ctx.actions.requested_tool_confirmations.pop(call_id, None)
        if requested is not None:
            if confirmed:
                raise WorkflowDataError(
                    f"Tool node {self.name!r}: its tool asked for a confirmation again after "
                    "the user answered one."
                )
            yield self._question(question, requested, args)
            return
        credential = ctx.actions.requested_auth_configs.pop(call_id, None)
        if credential is not None:
            from adk_runtime.auth.auth_tool import AuthConfig

            request = AuthConfig.model_validate(credential)
            yield credential_request_event(request, ctx, attempt)
            return
        yield response

    async def _call(self, ctx: NodeContext, args: dict[str, Any]) -> Any:
        """Before callbacks, the tool, error callbacks, after callbacks: the result."""
        plugins = ctx.invocation_context.plugin_manager
        tool = self.tool
        with telemetry.tool_span(
            tool.name, tool.description, ctx.function_call_id, args=args
        ) as call:
            response = await plugins.run_before_tool_callback(
                tool=tool, tool_args=args, tool_context=ctx
            )
            if response is not None:
                call.answered_by("before_tool_callback")
            else:
                try:
                    response = await tool.run_async(args=args, tool_context=ctx)
                except Exception as error:
                    # the failure is the result: what the tool asked for before is dropped
                    ctx.actions.requested_tool_confirmations.pop(ctx.function_call_id or "", None)
                    ctx.actions.requested_auth_configs.pop(ctx.function_call_id or "", None)
                    response = await plugins.run_on_tool_error_callback(
                        tool=tool, tool_args=args, tool_context=ctx, error=error
                    )
                    if response is None:
                        raise
                    call.answered_by("on_tool_error_callback")
            waits = ctx.actions.requested_tool_confirmations or ctx.actions.requested_auth_configs
            if waits or is_generator(response):
                return response  # no result for the after callbacks yet
            replaced = await plugins.run_after_tool_callback(
                tool=tool, tool_args=args, tool_context=ctx, result=response
            )
            result = response if replaced is None else replaced
            call.result(result)
        return result

    async def _driven(
        self, ctx: NodeContext, args: dict[str, Any], produced: Any
    ) -> AsyncGenerator[Any, None]:
        """A generator tool's items as the node's: events, a question, its one output.

        After a question the node waits, and the tool runs again from the start with the
        answer in ``tool_context.resume_inputs``. The after callbacks see the output.

        Raises:
            WorkflowDataError: The tool yielded a second output.
        """
        plugins = ctx.invocation_context.plugin_manager
        output: Any = None
        outputs = 0
        try:
            async with closing_items(produced) as items:
                async for item in items:
                    if isinstance(item, RunEvent):
                        continue  # a node tool's run: its writes came through the context
                    if item is PAUSED:  # a node tool's run asked the user: no one can answer
                        item = {
                            "error": f"Tool {self.tool.name!r} waits for the user, which a tool "
                            "node cannot wait for: put its node in the graph instead."
                        }
                    if isinstance(item, Event | RequestInput):
                        yield item
                        if isinstance(item, RequestInput):
                            return
                        continue
                    outputs += 1
                    if outputs > 1:
                        raise WorkflowDataError(
                            f"Tool node {self.name!r}: its generator tool yielded a second "
                            "output (one output, and any number of Events)."
                        )
                    output = item
        except WorkflowDataError:
            raise
        except Exception as error:
            output = await plugins.run_on_tool_error_callback(
                tool=self.tool, tool_args=args, tool_context=ctx, error=error
            )
            if output is None:
                raise
        replaced = await plugins.run_after_tool_callback(
            tool=self.tool, tool_args=args, tool_context=ctx, result=output
        )
        yield output if replaced is None else replaced

    def _arguments(self, ctx: NodeContext, node_input: Any) -> dict[str, Any]:
        """The tool's arguments from the node's input (and the state, for missing ones).

        Raises:
            WorkflowDataError: The input cannot be the tool's arguments.
        """
        value = _plain(node_input)
        names, required = _parameters(self.tool)
        if value is None:
            args: dict[str, Any] = {}
        elif isinstance(value, dict):
            args = dict(value)
        elif len(names) == 1 or len(required) == 1:
            args = {(names if len(names) == 1 else required)[0]: value}
        else:
            raise WorkflowDataError(
                f"Tool node {self.name!r} takes a dict of arguments as input (or the value of "
                f"its one parameter), not {type(value).__name__}."
            )
        for name in required:
            if name not in args and name in ctx.state:
                args[name] = ctx.state[name]
        return args

    def _question(
        self, question: str, requested: ToolConfirmation, args: dict[str, Any]
    ) -> RequestInput:
        payload: dict[str, Any] = {"tool_name": self.tool.name, "args": args}
        if requested.payload is not None:
            payload["payload"] = requested.payload
        return RequestInput(
            interrupt_id=question,
            message=requested.hint or f"Please approve or reject the call {self.tool.name}().",
            payload=to_json_value(payload, self.name),
            response_schema=ToolConfirmation,
        )


def _plain(node_input: Any) -> Any:
    """The input as a dict when it stands for one; else a message's text, or the input.

    A pydantic model's fields, and JSON text of a dict (also a message's text) are dicts.
    """
    value = node_input
    if _is_message(value):  # a message passed on by a node: stored as its JSON form
        value = types.Content.model_validate(value)
    if isinstance(value, types.Content):
        value = extract_text_from_content(value)
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if not isinstance(value, str):
        return value
    value = value.strip() or None
    if value is None:
        return None
    try:
        parsed = json.loads(value)
    except ValueError:
        return value
    return parsed if isinstance(parsed, dict) else value


def _is_message(value: Any) -> bool:
    """Whether ``value`` is a message's stored form (``{"role": ..., "parts": [...]}``)."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("parts"), list)
        and set(value) <= {"role", "parts"}
    )


def _call_id(node_path: str) -> str:
    """The ``function_call_id`` of the tool's call in the run at ``node_path`` (stable)."""
    return node_request_id("wf_tool:", node_path)


def _parameters(tool: BaseTool) -> tuple[list[str], list[str]]:
    """The tool's parameter names and its required ones, from its declaration."""
    try:
        declaration = tool._get_declaration()  # pyright: ignore[reportPrivateUsage]
    except Exception:  # a tool that cannot declare itself: its arguments come as a dict
        return [], []
    if declaration is None:
        return [], []
    schema: Any = declaration.parameters_json_schema
    if isinstance(schema, dict):
        return list(schema.get("properties") or ()), list(schema.get("required") or ())
    parameters = declaration.parameters
    if parameters is None:
        return [], []
    return list(parameters.properties or ()), list(parameters.required or ())
