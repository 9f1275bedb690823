"""``google.adk.flows.llm_flows.base_llm_flow`` → here: google-adk's flow class, as a face.

An LLM agent here runs one loop (``adk_runtime.agents._llm_flow.run_flow``); it does not
run a :class:`BaseLlmFlow`. The class keeps google-adk's shape for code that builds a
request or handles a model response step by step: ordered, named request and response
processors (each a face over a function the loop calls), ``_preprocess_async`` to run them
on a request, ``_postprocess_handle_function_calls_async`` to run a response's function
calls as the loop does, and ``run_async`` to run the agent through that loop.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterator
from contextlib import aclosing
from typing import TYPE_CHECKING

from adk_runtime.agents import _auth, _llm_flow, _toolsets
from adk_runtime.errors import UnsupportedFeatureError
from adk_runtime.events import Event
from adk_runtime.flows.llm_flows._base_llm_processor import (
    BaseLlmRequestProcessor,
    BaseLlmResponseProcessor,
    _Filler,
    llm_agent_of,
)

if TYPE_CHECKING:
    from adk_runtime.agents.llm_agent import LlmAgent
    from adk_runtime.core.invocation_context import InvocationContext
    from adk_runtime.models.llm_request import LlmRequest
    from adk_runtime.models.llm_response import LlmResponse

__all__ = ["TOOLSET_AUTH_CREDENTIAL_ID_PREFIX", "BaseLlmFlow"]

TOOLSET_AUTH_CREDENTIAL_ID_PREFIX = _auth.TOOLSET_AUTH_CREDENTIAL_ID_PREFIX
"""The ``functionCallId`` of a toolset's credential request: ``<prefix><toolset class>``."""


async def _resolve_toolset_auth(
    invocation_context: InvocationContext, agent: LlmAgent
) -> AsyncGenerator[Event, None]:
    """Get the credentials of the agent's toolsets before their tools are listed.

    See ``adk_runtime.agents._auth.resolve_toolset_auth``: a credential found goes into
    ``invocation_context.credential_by_key``; when some toolset has none, the event asking
    the user for them is yielded and the invocation ends.
    """
    async with aclosing(_auth.resolve_toolset_auth(agent, invocation_context)) as events:
        async for event in events:
            yield event


class _ToolsetAuthRequestProcessor(BaseLlmRequestProcessor):
    """Resolves the toolsets' credentials (may end the invocation to ask the user)."""

    name = "toolset_auth"

    async def run_async(
        self, invocation_context: InvocationContext, llm_request: LlmRequest
    ) -> AsyncGenerator[Event, None]:
        """Yield a state event and the credential request, when there are any."""
        agent = llm_agent_of(invocation_context)
        async with aclosing(_resolve_toolset_auth(invocation_context, agent)) as events:
            async for event in events:
                yield event


class _AgentToolsRequestProcessor(_Filler):
    """Offers the agent's tools (toolsets expanded; each adjusts the request)."""

    name = "agent_tools"

    async def _fill(self, invocation_context: InvocationContext, llm_request: LlmRequest) -> None:
        await _llm_flow.add_tools(llm_agent_of(invocation_context), invocation_context, llm_request)


class BaseLlmFlow:
    """Named request and response processors, run in order on one model call.

    ``request_processors`` run first, then ``tool_request_processors`` (the toolsets'
    credentials, then the agent's tools), so a processor that needs ``tools_dict`` belongs
    in the second list. The ``*_request_processor`` methods find a processor by its name in
    either list.

    Attributes:
        request_processors: Fill the request (empty here; see ``SingleFlow``).
        tool_request_processors: Resolve and offer the agent's tools.
        response_processors: Work on a complete model response (empty here).
    """

    def __init__(self) -> None:
        """A flow with the tool steps only."""
        self.request_processors: list[BaseLlmRequestProcessor] = []
        self.tool_request_processors: list[BaseLlmRequestProcessor] = [
            _ToolsetAuthRequestProcessor(),
            _AgentToolsRequestProcessor(),
        ]
        self.response_processors: list[BaseLlmResponseProcessor] = []

    def _iter_request_processors(self) -> Iterator[BaseLlmRequestProcessor]:
        """Every request processor, in the order they run."""
        yield from self.request_processors
        yield from self.tool_request_processors

    def _locate(self, name: str) -> tuple[list[BaseLlmRequestProcessor], int]:
        if not name:
            raise ValueError("A request processor is found by a non-empty name.")
        found = [
            (processors, index)
            for processors in (self.request_processors, self.tool_request_processors)
            for index, processor in enumerate(processors)
            if processor.name == name
        ]
        if len(found) != 1:
            names = sorted(p.name for p in self._iter_request_processors() if p.name)
            what = "No" if not found else f"{len(found)}"
            raise ValueError(
                f"{what} request processors are named {name!r}; the names are {names}."
            )
        return found[0]

    def _check_new_name(self, processor: BaseLlmRequestProcessor) -> None:
        if processor.name and any(
            p.name == processor.name for p in self._iter_request_processors()
        ):
            raise ValueError(f"This flow already has a request processor named {processor.name!r}.")

    def get_request_processor(self, name: str) -> BaseLlmRequestProcessor:
        """The request processor named ``name``.

        Raises:
            ValueError: ``name`` is empty, or not exactly one processor has it.
        """
        processors, index = self._locate(name)
        return processors[index]

    def replace_request_processor(
        self, name: str, processor: BaseLlmRequestProcessor
    ) -> BaseLlmRequestProcessor:
        """Put ``processor`` in the place of the one named ``name``; return the old one.

        Raises:
            ValueError: Not exactly one processor is named ``name``, or ``processor`` has
                another name that a processor of this flow already has.
        """
        processors, index = self._locate(name)
        if processor.name != name:
            self._check_new_name(processor)
        old = processors[index]
        processors[index] = processor
        return old

    def insert_request_processor_before(
        self, name: str, processor: BaseLlmRequestProcessor
    ) -> None:
        """Insert ``processor`` right before the one named ``name``.

        Raises:
            ValueError: Not exactly one processor is named ``name``, or the flow already has
                a processor with ``processor``'s name.
        """
        processors, index = self._locate(name)
        self._check_new_name(processor)
        processors.insert(index, processor)

    def insert_request_processor_after(self, name: str, processor: BaseLlmRequestProcessor) -> None:
        """Insert ``processor`` right after the one named ``name``.

        Raises:
            ValueError: As :meth:`insert_request_processor_before`.
        """
        processors, index = self._locate(name)
        self._check_new_name(processor)
        processors.insert(index + 1, processor)

    def remove_request_processor(self, name: str) -> BaseLlmRequestProcessor:
        """Remove the request processor named ``name`` and return it.

        Raises:
            ValueError: Not exactly one processor is named ``name``.
        """
        processors, index = self._locate(name)
        return processors.pop(index)

    async def _preprocess_async(
        self, invocation_context: InvocationContext, llm_request: LlmRequest
    ) -> AsyncGenerator[Event, None]:
        """Run the request processors in order on ``llm_request``; yield their events.

        Stops after a processor that ends the invocation (to wait for the user's answer).

        Raises:
            TypeError: The invocation's agent is not an ``LlmAgent``.
        """
        llm_agent_of(invocation_context)
        for processor in self._iter_request_processors():
            async with aclosing(processor.run_async(invocation_context, llm_request)) as events:
                async for event in events:
                    yield event
            if invocation_context.end_invocation:
                return

    async def _postprocess_run_processors_async(
        self, invocation_context: InvocationContext, llm_response: LlmResponse
    ) -> AsyncGenerator[Event, None]:
        """Run the response processors in order on ``llm_response``; yield their events."""
        for processor in self.response_processors:
            async with aclosing(processor.run_async(invocation_context, llm_response)) as events:
                async for event in events:
                    yield event

    async def _postprocess_handle_function_calls_async(
        self,
        invocation_context: InvocationContext,
        function_call_event: Event,
        llm_request: LlmRequest,
    ) -> AsyncGenerator[Event, None]:
        """Run the calls of ``function_call_event`` with the request's tools, as the loop does.

        Yields a credential or confirmation request when a tool asks for one, the calls'
        function-response event, the structured answer of a ``set_model_response`` call,
        and the events of an agent the conversation is transferred to.
        """
        agent = llm_agent_of(invocation_context)
        async with aclosing(
            _llm_flow.after_function_calls(
                agent,
                invocation_context,
                function_call_event,
                _toolsets.request_tools(llm_request),
            )
        ) as events:
            async for event in events:
                yield event

    async def run_async(self, invocation_context: InvocationContext) -> AsyncGenerator[Event, None]:
        """Run the invocation's agent through the LLM loop, the one every agent runs.

        The events are those of ``LlmAgent.run_async`` without the agent's callbacks
        around it: model responses (partial chunks when streaming), function responses,
        until a final response, a pause or a transfer. The loop builds each request with
        its own steps, in the order :class:`~.single_flow.SingleFlow` lists them; it does not
        consult this object's processor lists (changed lists take effect through
        :meth:`_preprocess_async`, for a request built by hand).

        Raises:
            TypeError: The invocation's agent is not an ``LlmAgent``.
        """
        agent = llm_agent_of(invocation_context)
        async with aclosing(_llm_flow.run_flow(agent, invocation_context)) as events:
            async for event in events:
                yield event

    def run_live(self, invocation_context: InvocationContext) -> AsyncGenerator[Event, None]:
        """google-adk's Live API flow; not implemented here.

        Raises:
            UnsupportedFeatureError: Always (adk_runtime runs request/response and SSE turns).
        """
        raise UnsupportedFeatureError(
            "BaseLlmFlow.run_live belongs to google-adk's Live API (bidirectional "
            "streaming), which adk_runtime does not implement; use Runner.run_async."
        )
