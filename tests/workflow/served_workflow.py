"""A workflow with a question, served by ``adk-runtime serve --agent`` in the HTTP tests."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from adk_runtime.events import RequestInput
from adk_runtime.workflow import START, NodeContext, Workflow


def intake(ctx: NodeContext, node_input: str) -> str:
    ctx.state["topic"] = node_input
    return node_input.strip().lower()


async def confirm(node_input: str) -> AsyncGenerator[Any, None]:
    yield RequestInput(
        interrupt_id="confirm", message=f"File {node_input!r}?", response_schema=bool
    )


def file(node_input: bool, topic: str) -> str:
    return f"filed {topic}" if node_input else "dropped"


workflow = Workflow(name="desk", edges=[(START, intake, confirm, file)])
