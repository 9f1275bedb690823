"""``google.adk.flows.llm_flows.auto_flow`` → here: :class:`SingleFlow` with agent transfer."""

from __future__ import annotations

from adk_runtime.flows.llm_flows import agent_transfer
from adk_runtime.flows.llm_flows.single_flow import SingleFlow

__all__ = ["AutoFlow"]


class AutoFlow(SingleFlow):
    """:class:`SingleFlow` that also offers ``transfer_to_agent``.

    The agent may transfer to its sub-agents, its parent and its peers (unless it
    disallows them), as an LLM agent's loop offers (``LlmAgent.canonical_tools``).
    """

    def __init__(self) -> None:
        """A flow with the standard processors and the transfer step."""
        super().__init__()
        self.request_processors.append(agent_transfer.request_processor)
