"""``node()``: make a node of a function, agent or tool (or change a node's settings)."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Mapping
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

from pydantic import Field, PrivateAttr
from typing_extensions import Self

from adk_runtime.core.base_agent import BaseAgent
from adk_runtime.core.base_tool import BaseTool
from adk_runtime.workflow._agent_node import AgentNode
from adk_runtime.workflow._base_node import START, BaseNode
from adk_runtime.workflow._errors import WorkflowConfigurationError
from adk_runtime.workflow._function_node import FunctionNode, as_auth_config
from adk_runtime.workflow._parallel_worker import ParallelWorker
from adk_runtime.workflow._retry_config import RetryConfig
from adk_runtime.workflow._tool_node import ToolNode

if TYPE_CHECKING:
    from adk_runtime.auth.auth_tool import AuthConfig
    from adk_runtime.workflow._context import NodeContext

__all__ = ["Node", "build_node", "node"]

_F = TypeVar("_F", bound=Callable[..., Any])


class Node(BaseNode):
    """A node to subclass: implement ``run_node_impl`` (or ``_run_impl``, see ``BaseNode``).

    Attributes:
        parallel_worker: Run the node once per item of a list input, at once, as
            ``node(..., parallel_worker=True)`` does (its output is the list of the items'
            outputs; ``input_schema`` and ``output_schema`` apply to each item). The node
            runs again on resume, as a parallel worker does.
        max_parallel_workers: At most this many items at once (with ``parallel_worker``);
            None: no limit.
    """

    parallel_worker: bool = Field(default=False, frozen=True)
    max_parallel_workers: int | None = Field(default=None, frozen=True)
    _inner_node: ParallelWorker | None = PrivateAttr(default=None)

    def model_post_init(self, context: Any, /) -> None:
        super().model_post_init(context)
        _check_parallel(self.parallel_worker, self.max_parallel_workers)
        self._wrap()

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        copied = super().model_copy(update=update, deep=deep)
        copied._wrap()
        return copied

    def _wrap(self) -> None:
        """The parallel worker running a copy of this node (not a parallel one) per item."""
        self._inner_node = None
        if self.parallel_worker:
            item_node = self.model_copy(
                update={"parallel_worker": False, "max_parallel_workers": None}
            )
            self._inner_node = ParallelWorker(
                node=item_node, max_parallel_workers=self.max_parallel_workers
            )
            self.rerun_on_resume = True

    async def run_node_impl(
        self, *, ctx: NodeContext, node_input: Any
    ) -> AsyncGenerator[Any, None]:
        """The node's work for one input, as ``_run_impl`` is (see ``BaseNode``).

        Raises:
            NotImplementedError: The subclass implements neither this nor ``_run_impl``.
        """
        for _ in ():  # an async generator, which fails when it runs
            yield
        raise NotImplementedError(
            f"Node {self.name!r} ({type(self).__name__}) has no work: implement run_node_impl."
        )

    async def _run_impl(self, *, ctx: NodeContext, node_input: Any) -> AsyncGenerator[Any, None]:
        if self._inner_node is not None:
            items = self._inner_node._run_impl(ctx=ctx, node_input=node_input)
        else:
            items = self.run_node_impl(ctx=ctx, node_input=node_input)
        async with aclosing(items) as running:
            async for item in running:
                yield item

    def _validate_input(self, data: Any) -> Any:
        # a parallel node's schemas are its items': each item's run checks them
        return data if self.parallel_worker else super()._validate_input(data)

    def _validate_output(self, data: Any) -> Any:
        return data if self.parallel_worker else super()._validate_output(data)


def _check_parallel(parallel_worker: bool, max_parallel_workers: int | None) -> None:
    if max_parallel_workers is None:
        return
    if not parallel_worker:
        raise WorkflowConfigurationError(
            "max_parallel_workers can only be given with parallel_worker=True."
        )
    if max_parallel_workers < 1:
        raise WorkflowConfigurationError("max_parallel_workers must be 1 or more.")


@overload
def node(
    node_like: None = None,
    *,
    name: str | None = None,
    rerun_on_resume: bool | None = None,
    retry_config: RetryConfig | None = None,
    timeout: float | None = None,
    parameter_binding: Literal["state", "node_input"] = "state",
    parallel_worker: bool = False,
    max_parallel_workers: int | None = None,
    require_confirmation: bool | Callable[..., bool] | None = None,
    auth_config: AuthConfig | None = None,
) -> Callable[[Any], BaseNode]: ...


@overload
def node(
    node_like: Any,
    *,
    name: str | None = None,
    rerun_on_resume: bool | None = None,
    retry_config: RetryConfig | None = None,
    timeout: float | None = None,
    parameter_binding: Literal["state", "node_input"] = "state",
    parallel_worker: bool = False,
    max_parallel_workers: int | None = None,
    require_confirmation: bool | Callable[..., bool] | None = None,
    auth_config: AuthConfig | None = None,
) -> BaseNode: ...


def node(
    node_like: Any = None,
    *,
    name: str | None = None,
    rerun_on_resume: bool | None = None,
    retry_config: RetryConfig | None = None,
    timeout: float | None = None,
    parameter_binding: Literal["state", "node_input"] = "state",
    parallel_worker: bool = False,
    max_parallel_workers: int | None = None,
    require_confirmation: bool | Callable[..., bool] | None = None,
    auth_config: AuthConfig | None = None,
) -> BaseNode | Callable[[Any], BaseNode]:
    """Make a node of ``node_like``, with these settings; a decorator without it.

    ``@node`` / ``@node(retry_config=...)`` on a function make it a ``FunctionNode``;
    ``node(agent)``, ``node(tool)``, ``node(existing_node, name="other")`` wrap or copy.
    ``parallel_worker=True`` runs the node once per item of its input list, at most
    ``max_parallel_workers`` at once; its output is the list of outputs (see
    ``ParallelWorker``). ``require_confirmation`` asks the user before a function node runs,
    and ``auth_config`` asks for the user's credential (see ``FunctionNode``;
    ``rerun_on_resume`` defaults to True with either).

    Raises:
        WorkflowConfigurationError: ``node_like`` cannot be a node, or
            ``max_parallel_workers`` is given without ``parallel_worker`` or is below 1, or
            ``require_confirmation`` or ``auth_config`` is given for something other than a
            function.
    """
    _check_parallel(parallel_worker, max_parallel_workers)
    settings: dict[str, Any] = {
        key: value
        for key, value in (
            ("name", name),
            ("rerun_on_resume", rerun_on_resume),
            ("retry_config", retry_config),
            ("timeout", timeout),
        )
        if value is not None
    }
    if node_like is None:
        return lambda func: node(
            func,
            name=name,
            rerun_on_resume=rerun_on_resume,
            retry_config=retry_config,
            timeout=timeout,
            parameter_binding=parameter_binding,
            parallel_worker=parallel_worker,
            max_parallel_workers=max_parallel_workers,
            require_confirmation=require_confirmation,
            auth_config=auth_config,
        )
    for setting, value in (
        ("require_confirmation", require_confirmation),
        ("auth_config", auth_config),
    ):
        if not value:
            continue
        plain = callable(node_like) and not isinstance(node_like, BaseNode | BaseAgent | BaseTool)
        if not (plain or isinstance(node_like, FunctionNode)):
            raise WorkflowConfigurationError(
                f"{setting} applies to function nodes (a tool asks with tool_context."
                "request_confirmation or request_credential)."
            )
        settings[setting] = as_auth_config(value) if setting == "auth_config" else value
        # it runs again once the user answered
        settings.setdefault("rerun_on_resume", True)
    if isinstance(node_like, BaseNode):
        built = node_like.model_copy(update=settings) if settings else node_like
    else:
        built = build_node(node_like, parameter_binding=parameter_binding, **settings)
    if parallel_worker:
        return ParallelWorker(node=built, max_parallel_workers=max_parallel_workers)
    return built


def build_node(
    node_like: Any, *, parameter_binding: Literal["state", "node_input"] = "state", **settings: Any
) -> BaseNode:
    """The node ``node_like`` stands for in an edge: itself, or a wrapper.

    Raises:
        WorkflowConfigurationError: ``node_like`` is not a node, agent, tool, callable or
            ``"START"``.
    """
    if isinstance(node_like, BaseNode):
        return node_like
    if node_like == "START":
        return START
    if isinstance(node_like, BaseAgent):
        settings.setdefault("name", node_like.name)
        settings.setdefault("description", node_like.description)
        agent_node = AgentNode(agent=node_like, **settings)
        if getattr(node_like, "parallel_worker", None):  # LlmAgent(parallel_worker=True)
            return ParallelWorker(node=agent_node)
        return agent_node
    if isinstance(node_like, BaseTool):
        settings.setdefault("name", node_like.name)
        settings.setdefault("description", node_like.description)
        return ToolNode(tool=node_like, **settings)
    if callable(node_like):
        return FunctionNode(node_like, parameter_binding=parameter_binding, **settings)
    raise WorkflowConfigurationError(
        f"A {type(node_like).__name__} cannot be a workflow node: use a node, an agent, a "
        "tool, a function or 'START'."
    )
