"""``JoinNode``: waits for every node leading into it, then passes their outputs on."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any, ClassVar

from adk_runtime.workflow._base_node import BaseNode

if TYPE_CHECKING:
    from adk_runtime.workflow._context import NodeContext

__all__ = ["JoinNode"]


class JoinNode(BaseNode):
    """Runs once every predecessor has delivered; its output is their outputs, by name.

    ``((fetch_a, fetch_b), JoinNode(name="both"), merge)`` gives ``merge`` the input
    ``{"fetch_a": ..., "fetch_b": ...}``. In a loop it waits for each predecessor's next run.
    With an ``input_schema`` each predecessor's output is checked against it (None, from a
    predecessor that made no output, is passed on unchecked, as google-adk does).
    """

    waits_for_all_predecessors: ClassVar[bool] = True

    def _validate_input(self, data: Any) -> Any:
        check = super()._validate_input  # (a bare super() does not work in a comprehension)
        if self.input_schema is not None and isinstance(data, dict):
            return {key: None if value is None else check(value) for key, value in data.items()}
        return check(data)

    async def _run_impl(self, *, ctx: NodeContext, node_input: Any) -> AsyncGenerator[Any, None]:
        yield node_input
