"""``FunctionNode``: a Python function as a workflow node."""

from __future__ import annotations

import functools
import inspect
import typing
from collections import abc
from collections.abc import AsyncGenerator, Callable
from typing import TYPE_CHECKING, Any, Literal

from google.genai import types
from pydantic import BaseModel, PrivateAttr, TypeAdapter, ValidationError

from adk_runtime.core.readonly_context import ReadonlyContext
from adk_runtime.events.event import Event
from adk_runtime.events.request_input import RequestInput
from adk_runtime.events.tool_confirmation import ToolConfirmation
from adk_runtime.tools._declaration import callable_doc, resolved_hints
from adk_runtime.utils._problems import problems
from adk_runtime.workflow._base_node import BaseNode, message_value, to_json_value
from adk_runtime.workflow._errors import (
    SchemaMismatchError,
    WorkflowConfigurationError,
    WorkflowDataError,
)
from adk_runtime.workflow._interrupts import node_request_id
from adk_runtime.workflow._node_auth import credential_gate
from adk_runtime.workflow._retry_config import RetryConfig

if TYPE_CHECKING:
    from adk_runtime.auth.auth_tool import AuthConfig
    from adk_runtime.workflow._context import NodeContext

__all__ = ["FunctionNode"]

_CONTEXT_NAMES = frozenset({"ctx", "context", "tool_context", "callback_context"})
_MISSING = inspect.Parameter.empty


class FunctionNode(BaseNode):
    """A function (sync or async, plain or a generator) run as a node.

    Its parameters are filled by name: ``ctx`` (or any parameter annotated with a context
    type) gets the node's context, ``node_input`` the node's input, and every other one the
    session state's value under its name (``parameter_binding="state"``, the default) or the
    input dict's (``"node_input"``; or the fields of the model its ``input_schema`` made of
    the input), or its default. Values are coerced to the annotations
    (a dict to a pydantic model, a message to ``str``...).

    A plain function's return value is the node's output (None: no output); a generator's
    items are handled as ``BaseNode`` handles ``_run_impl``'s (events, messages, questions,
    one output).

    With ``require_confirmation`` (True, or a predicate given the bound arguments by name,
    and ``ctx`` if it takes one) the node first asks the user to approve the call: a
    ``RequestInput`` whose answer is a ``ToolConfirmation`` (``{"confirmed": true}``). The node
    runs again with the answer (it needs ``rerun_on_resume=True``, which ``@node`` sets): an
    approval runs the function, a rejection makes ``{"error": "This tool call is
    rejected."}`` the output.

    With ``auth_config`` (an ``adk_runtime.auth.AuthConfig``; the ``auth`` extra) the node
    needs the end user's credential before it runs. When this invocation has none for the
    config's ``credential_key`` (another node may have got it), the node asks for it: a
    long-running ``adk_request_credential`` call with id ``wf_auth:<path>``, its arguments
    an ``AuthToolArguments`` and a ``message``, as a tool's request. The answer (the auth
    config with ``exchangedAuthCredential`` filled in, the credential, or a bare API key) is
    checked before it is stored and pinned to the stored request as a tool's is; the node
    runs again and reads the credential with ``ctx.get_auth_response(auth_config)``. The
    credential is kept for the rest of the invocation only (a ``temp:`` key). An OAuth2
    code the token endpoint refuses makes the node ask again (``wf_auth:<path>:2``...).

    Attributes:
        parameter_binding: Where parameters other than ``ctx`` and ``node_input`` come from.
        require_confirmation: Ask the user before each run (True), or when the predicate
            says so.
        auth_config: The credential the node needs before it runs.
    """

    parameter_binding: Literal["state", "node_input"] = "state"
    require_confirmation: bool | Callable[..., bool] = False
    auth_config: Any = None
    _func: Callable[..., Any] = PrivateAttr()
    _signature: inspect.Signature = PrivateAttr()
    _adapters: dict[str, TypeAdapter[Any]] = PrivateAttr(default_factory=dict)
    _context_names: set[str] = PrivateAttr(default_factory=set)

    def __init__(
        self,
        func: Callable[..., Any] | None = None,
        *,
        name: str | None = None,
        rerun_on_resume: bool = False,
        retry_config: RetryConfig | None = None,
        timeout: float | None = None,
        parameter_binding: Literal["state", "node_input"] = "state",
        require_confirmation: bool | Callable[..., bool] = False,
        auth_config: AuthConfig | None = None,
        **fields: Any,
    ) -> None:
        """Wrap ``func`` (also accepted as ``func=``); its name is the node's unless given.

        Raises:
            WorkflowConfigurationError: ``func`` is not callable, or has no name and none is
                given, or ``require_confirmation`` or ``auth_config`` comes without
                ``rerun_on_resume=True``, or ``auth_config`` is not an ``AuthConfig``.
        """
        func = fields.pop("func", func)
        for setting, value in (
            ("require_confirmation", require_confirmation),
            ("auth_config", auth_config),
        ):
            if value and not rerun_on_resume:
                raise WorkflowConfigurationError(
                    f"A FunctionNode with {setting} needs rerun_on_resume=True: it runs again "
                    "once the user answered."
                )
        fields["require_confirmation"] = require_confirmation
        fields["auth_config"] = as_auth_config(auth_config)
        if not callable(func):
            raise WorkflowConfigurationError("A FunctionNode wraps a callable.")
        inferred = name or getattr(_unwrapped(func), "__name__", None)
        if not inferred or inferred == "<lambda>":
            raise WorkflowConfigurationError(
                "This callable has no usable name: give the FunctionNode one (name=...)."
            )
        fields.setdefault("description", callable_doc(func))
        fields["parameter_binding"] = parameter_binding
        super().__init__(
            name=inferred,
            rerun_on_resume=rerun_on_resume,
            retry_config=retry_config,
            timeout=timeout,
            **fields,
        )
        self._func = func
        self._read_signature(func)

    def _read_signature(self, func: Callable[..., Any]) -> None:
        """Note the context parameters, the others' types, and the output model."""
        self._signature = inspect.signature(func)
        hints = resolved_hints(func)  # also a partial's, a callable object's
        if self.output_schema is None:
            self.output_schema = _output_model(hints.get("return"))
        if self.input_schema is None and "node_input" in self._signature.parameters:
            self.input_schema = _model_named(hints.get("node_input"))
        for parameter in self._signature.parameters.values():
            hint = hints.get(parameter.name, _MISSING)
            if parameter.name in _CONTEXT_NAMES or _is_context_type(hint):
                self._context_names.add(parameter.name)
            elif hint is not _MISSING and hint is not Any:
                try:
                    self._adapters[parameter.name] = TypeAdapter(hint)
                except Exception:
                    continue

    @property
    def state_parameters(self) -> list[str]:
        """The parameters filled from session state (none with ``"node_input"`` binding)."""
        if self.parameter_binding != "state":
            return []
        return [
            parameter.name
            for parameter in self._signature.parameters.values()
            if parameter.name not in self._context_names
            and parameter.name != "node_input"
            and parameter.kind not in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD)
        ]

    async def _run_impl(self, *, ctx: NodeContext, node_input: Any) -> AsyncGenerator[Any, None]:
        if self.auth_config is not None:
            request = await credential_gate(self.auth_config, ctx)
            if request is not None:
                yield request
                return
        arguments = self._arguments(ctx, node_input)
        if self.require_confirmation:
            gate = await self._confirmation(ctx, arguments)
            if gate is not None:
                yield gate
                return
        func = self._func
        if inspect.isasyncgenfunction(func):
            async for item in func(**arguments):
                yield item
        elif inspect.isgeneratorfunction(func):
            for item in func(**arguments):
                yield item
        else:
            result = func(**arguments)
            if inspect.isawaitable(result):
                result = await result
            yield result

    async def _confirmation(self, ctx: NodeContext, arguments: dict[str, Any]) -> Any:
        """The question to ask, the rejection to output, or None to run the function."""
        request_id = confirmation_id(ctx.node_path)
        if request_id in ctx.resume_inputs:
            confirmation = parse_confirmation(self.name, ctx.resume_inputs[request_id])
            return None if confirmation.confirmed else {"error": "This tool call is rejected."}
        shown = {k: v for k, v in arguments.items() if k not in self._context_names}
        if callable(self.require_confirmation):
            wanted: Any = self.require_confirmation(
                **{
                    name: (ctx if name in ("ctx", "context") else shown.get(name))
                    for name in inspect.signature(self.require_confirmation).parameters
                    if name in shown or name in ("ctx", "context")
                }
            )
            if inspect.isawaitable(wanted):
                wanted = await wanted
            if not wanted:
                return None
        return RequestInput(
            interrupt_id=request_id,
            message=f"Please approve or reject the call {self.name}().",
            payload={"tool_name": self.name, "args": to_json_value(shown, self.name)},
            response_schema=ToolConfirmation,
        )

    def _arguments(self, ctx: NodeContext, node_input: Any) -> dict[str, Any]:
        arguments: dict[str, Any] = {}
        # a dict's keys, or a model's fields (an input its input_schema made a model)
        source = dict(node_input) if isinstance(node_input, dict | BaseModel) else {}
        for parameter in self._signature.parameters.values():
            name = parameter.name
            if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                continue
            if name in self._context_names:
                arguments[name] = ctx
                continue
            if name == "node_input":
                value = node_input
            elif self.parameter_binding == "state" and name in ctx.state:
                value = ctx.state[name]
            elif self.parameter_binding == "node_input" and name in source:
                value = source[name]
            elif parameter.default is not _MISSING:
                continue
            else:
                where = "session state" if self.parameter_binding == "state" else "node input"
                raise WorkflowDataError(
                    f"Node {self.name!r}: parameter {name!r} has no value in the {where} "
                    "and no default."
                )
            arguments[name] = self._coerced(name, value)
        return arguments

    def _coerced(self, name: str, value: Any) -> Any:
        adapter = self._adapters.get(name)
        if adapter is None:
            return value
        if isinstance(value, types.Content):
            value = message_value(value, adapter, f"Node {self.name!r}, parameter {name!r},")
        try:
            return adapter.validate_python(value)
        except ValidationError as error:
            message = (
                f"Node {self.name!r}: parameter {name!r} does not fit its annotation: "
                f"{problems(error)}."
            )
            raise SchemaMismatchError.of(message, error) from None


def parse_confirmation(node_name: str, answer: Any) -> ToolConfirmation:
    """The user's answer to a node's confirmation request (a bare bool is ``confirmed``).

    Raises:
        WorkflowDataError: The answer is not a ``ToolConfirmation``.
    """
    try:
        return ToolConfirmation.from_response_dict(
            answer if isinstance(answer, dict) else {"confirmed": answer}
        )
    except (ValueError, TypeError):
        raise WorkflowDataError(
            f"Node {node_name!r}: the answer to its confirmation request is not a "
            'ToolConfirmation ({"confirmed": true or false}).'
        ) from None


def confirmation_id(node_path: str) -> str:
    """The interrupt id of the confirmation request of the node run at ``node_path``.

    ``wf_tool_confirmation:<path>`` as google-adk names it; a path too long for an id (over
    100 characters) is replaced by its SHA-256 (the id stays the same for that run).
    """
    return node_request_id("wf_tool_confirmation:", node_path)


def as_auth_config(value: Any) -> Any:
    """``value`` as an ``AuthConfig`` (a dict is validated), or None.

    Raises:
        WorkflowConfigurationError: ``value`` is not an auth config.
    """
    if value is None:
        return None
    from adk_runtime.auth.auth_tool import AuthConfig

    if isinstance(value, AuthConfig):
        return value
    try:
        return AuthConfig.model_validate(value)
    except ValidationError as error:
        raise WorkflowConfigurationError(
            f"auth_config is not an AuthConfig: {problems(error)}."
        ) from None


def _unwrapped(func: Callable[..., Any]) -> Any:
    """The function a ``functools.partial`` wraps (it has no name of its own)."""
    while isinstance(func, functools.partial):
        func = func.func
    return func


def _model_named(hint: Any) -> type[BaseModel] | None:
    """The pydantic model ``hint`` names, if any (a message, event or request type: none).

    A ``node_input`` annotation's is the node's ``input_schema``, a return hint's its
    ``output_schema``, as google-adk infers them.
    """
    if not isinstance(hint, type) or not issubclass(hint, BaseModel):
        return None
    if issubclass(hint, types.Content | Event | RequestInput):
        return None
    return hint


def _output_model(hint: Any) -> type[BaseModel] | None:
    """The pydantic model a function's return hint names (a generator's: what it yields).

    Its outputs are checked against it, as google-adk does (a dict gets the model's
    defaults); a message, event or request type is not an output model.
    """
    if typing.get_origin(hint) in (
        abc.Generator,
        abc.AsyncGenerator,
        abc.Iterator,
        abc.AsyncIterator,
    ):
        hint = (typing.get_args(hint) or (None,))[0]
    return _model_named(hint)


def _is_context_type(hint: Any) -> bool:
    return isinstance(hint, type) and issubclass(hint, ReadonlyContext)
