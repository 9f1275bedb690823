"""A workflow with a question, served by ``adk-runtime serve --agent`` in the HTTP tests."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from adk_runtime.events import RequestInput
from adk_runtime.workflow import START, NodeContext, Workflow, node


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


def _key_config() -> Any:
    from fastapi.openapi.models import APIKey, APIKeyIn

    from adk_runtime.auth import AuthConfig, AuthCredential, AuthCredentialTypes

    return AuthConfig(
        auth_scheme=APIKey(**{"in": APIKeyIn.header, "name": "X-Ledger-Key"}),  # pyright: ignore[reportArgumentType]
        raw_auth_credential=AuthCredential(
            auth_type=AuthCredentialTypes.API_KEY, api_key="server-side-placeholder"
        ),
        credential_key="ledger",
    )


LEDGER_KEY = _key_config()


@node(auth_config=LEDGER_KEY)
def ledger(ctx: NodeContext) -> str:
    credential = ctx.get_auth_response(LEDGER_KEY)
    key = credential.api_key if credential is not None else ""
    return f"ledger opened with a key of {len(key or '')} characters"


keyed_workflow = Workflow(name="vault", edges=[(START, ledger)])
"""A function node that asks for the user's API key before it runs."""
