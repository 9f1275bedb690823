"""transfer_to_agent: the tool an LLM agent uses to hand the conversation to another agent."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from google.genai import types

from adk_runtime.tools.base_tool import BaseTool
from adk_runtime.tools.tool_context import ToolContext

if TYPE_CHECKING:
    from adk_runtime.agents.base_agent import BaseAgent
    from adk_runtime.models.llm_request import LlmRequest

__all__ = ["TransferToAgentTool", "transfer_to_agent"]

NAME = "transfer_to_agent"


def transfer_to_agent(agent_name: str, tool_context: ToolContext) -> None:
    """Hand the conversation to the agent named ``agent_name``.

    The plain function, as google-adk exports it; an LLM agent is offered
    :class:`TransferToAgentTool` instead, which accepts only the agents it may transfer to.

    Args:
        agent_name: The agent that answers from now on.
        tool_context: Filled in by the runtime.
    """
    tool_context.actions.transfer_to_agent = agent_name


class TransferToAgentTool(BaseTool):
    """Offered automatically to an LLM agent that may transfer; only known targets are accepted.

    A call with an allowed agent name sets ``actions.transfer_to_agent``; the agent then hands
    the rest of the invocation to that agent. Any other name is answered with an error the
    model sees.
    """

    def __init__(self, targets: Sequence[BaseAgent]) -> None:
        """Offer transfers to ``targets``."""
        super().__init__(
            name=NAME,
            description="Hand the conversation to another agent better suited to answer.",
        )
        self.targets = list(targets)

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        names = [agent.name for agent in self.targets]
        return types.FunctionDeclaration(
            name=self.name,
            description=self.description,
            parameters_json_schema={
                "type": "object",
                "properties": {
                    "agent_name": {
                        "type": "string",
                        "enum": names,
                        "description": "The name of the agent to hand over to.",
                    }
                },
                "required": ["agent_name"],
            },
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Record the transfer, or explain why the name is not allowed."""
        name = args.get("agent_name")
        names = [agent.name for agent in self.targets]
        if name not in names:
            return {"error": f"Cannot transfer to {name!r}; choose one of {names}."}
        tool_context.actions.transfer_to_agent = name
        return None

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Describe the agents the model may hand over to, then offer the tool."""
        lines = [
            f"You are agent `{tool_context.agent_name}`. You may hand the conversation to "
            f"another agent by calling `{NAME}` when it is better suited to answer:"
        ]
        lines += [f"- `{agent.name}`: {agent.description}" for agent in self.targets]
        llm_request.append_instructions(["\n".join(lines)])
        await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)
