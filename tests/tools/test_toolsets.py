"""BaseToolset in LlmAgent.tools: resolved per invocation, filtered, prefixed, closed."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from adk_runtime.agents import LlmAgent, ReadonlyContext
from adk_runtime.models import LlmRequest
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import BaseTool, BaseToolset, FunctionTool, ToolContext
from tests.llm.helpers import send, start, texts


def ping() -> str:
    """Answer pong."""
    return "pong"


def refund(order: str) -> dict[str, Any]:
    """Refund an order."""
    return {"refunded": order}


class ShopToolset(BaseToolset):
    """Offers ``refund`` only to users whose state says they are staff."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.listed: list[str | None] = []
        self.closed = 0
        self.prepared = 0

    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        self.listed.append(readonly_context.invocation_id if readonly_context else None)
        tools: list[BaseTool] = [FunctionTool(ping)]
        if readonly_context is not None and readonly_context.state.get("staff"):
            tools.append(FunctionTool(refund))
        return [t for t in tools if self._is_tool_selected(t, readonly_context)]

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        self.prepared += 1
        llm_request.append_instructions(["The shop is open."])

    async def close(self) -> None:
        self.closed += 1


class BrokenToolset(BaseToolset):
    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        raise RuntimeError("listing failed")

    async def close(self) -> None:
        raise RuntimeError("closing failed")


def declared(request: LlmRequest) -> list[str]:
    tools = request.config.tools or []
    return sorted(d.name or "" for t in tools for d in t.function_declarations or [])


async def test_toolset_tools_depend_on_the_context(session_service: BaseSessionService) -> None:
    toolset = ShopToolset(tool_name_prefix="shop")
    model = ScriptedModel(
        replies=[
            function_call("shop_refund", {"order": "A7"}),
            "refunded",
            "hello guest",
        ]
    )
    agent = LlmAgent(name="desk", model=model, tools=[toolset])
    runner = await start(agent, session_service, state={"staff": True})
    events = await send(runner, "refund A7")
    assert events[1].get_function_responses()[0].response == {"refunded": "A7"}
    assert texts(events) == ["refunded"]
    assert declared(model.requests[0]) == ["shop_ping", "shop_refund"]
    assert "The shop is open." in str(model.requests[0].config.system_instruction)
    # two model calls, one listing: tools are resolved once per invocation
    assert toolset.listed == [events[0].invocation_id]
    assert toolset.prepared == 2

    await runner.session_service.create_session(app_name="app", user_id="u1", session_id="g")
    guest = await send(runner, "hi", session_id="g")
    assert texts(guest) == ["hello guest"]
    assert declared(model.requests[2]) == ["shop_ping"]
    assert toolset.listed == [events[0].invocation_id, guest[0].invocation_id]


async def test_tool_filter_list_and_predicate(session_service: BaseSessionService) -> None:
    by_name = ShopToolset(tool_filter=["refund"])
    by_predicate = ShopToolset(tool_filter=lambda tool, ctx=None: tool.name == "ping")
    model = ScriptedModel(replies=["ok"])
    agent = LlmAgent(name="desk", model=model, tools=[by_name, by_predicate])
    runner = await start(agent, session_service, state={"staff": True})
    await send(runner, "hi")
    assert declared(model.requests[0]) == ["ping", "refund"]
    assert [t.name for t in await agent.canonical_tools()] == ["ping"]  # no context: no staff


async def test_a_failing_toolset_is_left_out_and_logged(
    session_service: BaseSessionService, caplog: pytest.LogCaptureFixture
) -> None:
    model = ScriptedModel(replies=[function_call("ping"), "pong it is"])
    agent = LlmAgent(name="desk", model=model, tools=[BrokenToolset(), ping])
    runner = await start(agent, session_service)
    with caplog.at_level(logging.ERROR, logger="adk_runtime.agents._toolsets"):
        events = await send(runner, "ping")
    assert texts(events) == ["pong it is"]
    assert declared(model.requests[0]) == ["ping"]
    assert "BrokenToolset" in caplog.text
    assert "listing failed" in caplog.text


async def test_runner_close_closes_every_toolset_of_the_tree(
    session_service: BaseSessionService, caplog: pytest.LogCaptureFixture
) -> None:
    shared = ShopToolset()
    child = LlmAgent(name="child", model=ScriptedModel(), tools=[shared, BrokenToolset()])
    root = LlmAgent(name="root", model=ScriptedModel(), tools=[shared], sub_agents=[child])
    runner = Runner(app_name="app", agent=root, session_service=session_service)
    with caplog.at_level(logging.WARNING):
        await runner.close()
    assert shared.closed == 1  # once, although two agents use it
    assert "BrokenToolset" in caplog.text  # its failure is logged; the others still closed
    async with Runner(app_name="app", agent=root, session_service=session_service):
        pass
    assert shared.closed == 2


async def test_prefixed_copies_leave_the_originals_alone() -> None:
    class One(BaseToolset):
        def __init__(self) -> None:
            super().__init__(tool_name_prefix="x")
            self.tool = FunctionTool(ping)

        async def get_tools(
            self, readonly_context: ReadonlyContext | None = None
        ) -> list[BaseTool]:
            return [self.tool]

    toolset = One()
    (prefixed,) = await toolset.get_tools_with_prefix()
    assert prefixed.name == "x_ping"
    declaration = prefixed._get_declaration()
    assert declaration is not None
    assert declaration.name == "x_ping"
    assert toolset.tool.name == "ping"
    original = toolset.tool._get_declaration()
    assert original is not None
    assert original.name == "ping"


def test_a_tool_takes_google_adks_constructor_arguments() -> None:
    from google.genai import types

    from adk_runtime.tools import BaseTool

    class Plain(BaseTool):
        def __init__(self) -> None:  # sets its own attributes, as some ported tools do
            self.name, self.description = "plain", "no base init"

    tool = BaseTool(
        name="t",
        description="d",
        custom_metadata={"owner": "search-team"},
        behavior=types.Behavior.NON_BLOCKING,
        response_scheduling=types.FunctionResponseScheduling.SILENT,
    )
    assert tool.custom_metadata == {"owner": "search-team"}
    assert tool.behavior == types.Behavior.NON_BLOCKING
    assert tool.response_scheduling == types.FunctionResponseScheduling.SILENT
    plain = Plain()
    assert (plain.custom_metadata, plain.behavior, plain.response_scheduling) == (None, None, None)
    assert plain.is_long_running is False
