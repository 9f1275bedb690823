"""``google.adk.flows.llm_flows._base_llm_processor`` → here: the request-processor shape.

adk_runtime's LLM flow is one loop (``adk_runtime.agents._llm_flow``) with no processor
pipeline. The processors of this package are faces over the functions that loop calls, for
code that builds a request step by step as google-adk's processors do.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING

from adk_runtime.events import Event

if TYPE_CHECKING:
    from adk_runtime.agents.llm_agent import LlmAgent
    from adk_runtime.core.invocation_context import InvocationContext
    from adk_runtime.models.llm_request import LlmRequest
    from adk_runtime.models.llm_response import LlmResponse

__all__ = ["BaseLlmRequestProcessor", "BaseLlmResponseProcessor"]


class BaseLlmRequestProcessor(ABC):
    """Fills part of an ``LlmRequest`` for the invocation's agent.

    Attributes:
        name: The processor's name (empty: anonymous).
    """

    name: str = ""

    @abstractmethod
    def run_async(
        self, invocation_context: InvocationContext, llm_request: LlmRequest
    ) -> AsyncGenerator[Event, None]:
        """Fill ``llm_request``; yield the events the step produces (usually none)."""


class BaseLlmResponseProcessor(ABC):
    """Works on a complete model response for the invocation's agent, before it is an event.

    Attributes:
        name: The processor's name (empty: anonymous).
    """

    name: str = ""

    @abstractmethod
    def run_async(
        self, invocation_context: InvocationContext, llm_response: LlmResponse
    ) -> AsyncGenerator[Event, None]:
        """Read or rewrite ``llm_response``; yield the events the step produces."""


class _Filler(BaseLlmRequestProcessor):
    """A processor that only fills the request (it yields no event)."""

    async def run_async(
        self, invocation_context: InvocationContext, llm_request: LlmRequest
    ) -> AsyncGenerator[Event, None]:
        """Fill ``llm_request`` for the context's agent; yields no event."""
        await self._fill(invocation_context, llm_request)
        nothing: tuple[Event, ...] = ()
        for event in nothing:  # an async generator that yields nothing
            yield event

    @abstractmethod
    async def _fill(self, invocation_context: InvocationContext, llm_request: LlmRequest) -> None:
        """Fill ``llm_request``."""


def llm_agent_of(invocation_context: InvocationContext) -> LlmAgent:
    """The invocation's agent, which must be an ``LlmAgent``.

    Raises:
        TypeError: It is another kind of agent.
    """
    from adk_runtime.agents.llm_agent import LlmAgent

    agent = invocation_context.agent
    if not isinstance(agent, LlmAgent):
        raise TypeError(
            f"This step of the LLM flow needs an LlmAgent; the invocation's agent "
            f"{agent.name!r} is a {type(agent).__name__}."
        )
    return agent
