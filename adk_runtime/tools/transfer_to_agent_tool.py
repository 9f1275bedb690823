"""transfer_to_agent: the tool an LLM agent uses to hand the conversation to another agent."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from adk_runtime.core.tool_context import ToolContext
from adk_runtime.tools._declaration import function_declaration
from adk_runtime.tools.function_tool import FunctionTool

if TYPE_CHECKING:
    from google.genai import types

    from adk_runtime.models.llm_request import LlmRequest

__all__ = ["TransferToAgentTool", "transfer_to_agent"]

NAME = "transfer_to_agent"


def transfer_to_agent(
    agent_name: str, tool_context: ToolContext, *, transfer_reason: str = ""
) -> None:
    """Hand the conversation to the agent named ``agent_name``.

    The plain function, as google-adk exports it; an LLM agent is offered
    :class:`TransferToAgentTool` instead, which accepts only the agents it may transfer to.

    Args:
        agent_name: The agent that answers from now on.
        tool_context: Filled in by the runtime.
        transfer_reason: Why (stored as ``actions.transfer_reason``; empty: none given).
    """
    tool_context.actions.transfer_to_agent = agent_name
    tool_context.actions.transfer_reason = transfer_reason or None


class TransferToAgentTool(FunctionTool):
    """Offered automatically to an LLM agent that may transfer; only known targets are accepted.

    A call with an allowed agent name sets ``actions.transfer_to_agent``; the agent then hands
    the rest of the invocation to that agent. Any other name is answered with an error the
    model sees. The declaration restricts ``agent_name`` to the allowed names (an enum). A
    :class:`FunctionTool` of :func:`transfer_to_agent`, as in google-adk.
    """

    def __init__(
        self,
        agent_names: Sequence[str],
        include_transfer_reason: bool = False,
        *,
        descriptions: Mapping[str, str] | None = None,
    ) -> None:
        """Offer transfers to ``agent_names``.

        Args:
            agent_names: The agents the model may hand the conversation to.
            include_transfer_reason: Also ask the model for a ``transfer_reason``, stored as
                ``actions.transfer_reason``.
            descriptions: Agent name to description, listed to the model with the names.
        """
        description = (
            "Transfer the query to another agent: hand the conversation to the one better "
            "suited to answer."
        )
        if include_transfer_reason:
            description += " Say why in transfer_reason."
        super().__init__(transfer_to_agent)
        self.description = description
        self.agent_names = list(agent_names)
        self.include_transfer_reason = include_transfer_reason
        self.descriptions = dict(descriptions or {})

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        properties: dict[str, Any] = {
            "agent_name": {
                "type": "string",
                "enum": list(self.agent_names),
                "description": "The name of the agent to hand over to.",
            }
        }
        if self.include_transfer_reason:
            properties["transfer_reason"] = {
                "type": "string",
                "description": "Why that agent is better suited.",
            }
        schema = {"type": "object", "properties": properties, "required": ["agent_name"]}
        return function_declaration(self.name, self.description, schema)

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Record the transfer, or explain why the name is not allowed."""
        name = args.get("agent_name")
        if not isinstance(name, str) or name not in self.agent_names:
            return {"error": f"Cannot transfer to {name!r}; choose one of {self.agent_names}."}
        reason = args.get("transfer_reason") if self.include_transfer_reason else None
        transfer_to_agent(
            name, tool_context, transfer_reason=reason if isinstance(reason, str) else ""
        )
        return None

    async def check_require_confirmation(
        self, args: dict[str, Any], tool_context: ToolContext
    ) -> bool:
        """A transfer never asks the user first."""
        return False

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Describe the agents the model may hand over to, then offer the tool."""
        lines = [
            f"You are agent `{tool_context.agent_name}`. You may hand the conversation to "
            f"another agent by calling `{NAME}` when it is better suited to answer:"
        ]
        for name in self.agent_names:
            about = self.descriptions.get(name)
            lines.append(f"- `{name}`: {about}" if about else f"- `{name}`")
        llm_request.append_instructions(["\n".join(lines)])
        await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)
