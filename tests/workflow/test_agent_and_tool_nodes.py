"""Agents and tools as workflow nodes, run by a Runner on every backend."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import BaseModel

from adk_runtime.agents import LlmAgent
from adk_runtime.core.tool_context import ToolContext
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing.scripted_model import ScriptedModel, function_call
from adk_runtime.tools import FunctionTool, LongRunningFunctionTool
from adk_runtime.workflow import START, NodeContext, Workflow, WorkflowConfigurationError
from tests.workflow.helpers import Run, answer, message, outputs


def _texts(request: LlmRequest) -> list[str]:
    return [
        f"{content.role}:{part.text}"
        for content in request.contents
        for part in content.parts or []
        if part.text
    ]


class Verdict(BaseModel):
    label: str
    score: float


async def test_an_agent_answers_the_nodes_input_and_its_answer_flows_on(
    session_service: BaseSessionService,
) -> None:
    writer_model = ScriptedModel(replies=["A short poem about tea."])
    judge_model = ScriptedModel(replies=['{"label": "good", "score": 0.9}'])
    writer = LlmAgent(name="writer", model=writer_model, output_key="poem")
    judge = LlmAgent(name="judge", model=judge_model, output_schema=Verdict)

    def brief(node_input: str) -> str:
        return f"Write about {node_input}"

    def report(node_input: dict[str, Any]) -> str:
        return f"{node_input['label']} ({node_input['score']})"

    workflow = Workflow(name="poetry", edges=[(START, brief, writer, judge, report)])
    run = await Run(session_service, workflow).start()
    events = await run.send(message("tea"))

    assert outputs(events) == {
        "poetry@1/brief@1": "Write about tea",
        "poetry@1/writer@1": "A short poem about tea.",
        "poetry@1/judge@1": {"label": "good", "score": 0.9},
        "poetry@1/report@1": "good (0.9)",
    }
    # each agent was asked the node's input, committed as a user message on the node's path
    assert _texts(writer_model.requests[0])[-1] == "user:Write about tea"
    assert _texts(judge_model.requests[0])[-1] == "user:A short poem about tea."
    session = await run.session()
    inputs = [e for e in session.events if e.author == "user" and e.node_info.path]
    assert [e.node_info.path for e in inputs] == ["poetry@1/writer@1", "poetry@1/judge@1"]
    assert session.state["poem"] == "A short poem about tea."
    assert {e.author for e in session.events} == {"user", "poetry", "writer", "judge"}


async def test_an_agent_at_start_answers_the_users_message_as_it_is(
    session_service: BaseSessionService,
) -> None:
    model = ScriptedModel(replies=["Hello!"])
    workflow = Workflow(name="greeter", edges=[(START, LlmAgent(name="greet", model=model))])
    run = await Run(session_service, workflow).start()
    events = await run.send(message("hi"))
    assert outputs(events) == {"greeter@1/greet@1": "Hello!"}
    assert _texts(model.requests[0]) == ["user:hi"]  # not asked twice


async def test_an_agent_waiting_on_a_long_running_tool_pauses_the_workflow(
    session_service: BaseSessionService,
) -> None:
    def request_refund(amount: int) -> dict[str, str]:
        """Ask a human to approve a refund."""
        return {"status": "pending"}

    def reply(request: LlmRequest) -> Any:
        answered = [
            p.function_response
            for c in request.contents
            for p in c.parts or []
            if p.function_response is not None
        ]
        if not answered:
            return function_call("request_refund", {"amount": 20}, id="refund-1")
        return f"Refund {(answered[-1].response or {}).get('result')}."

    agent = LlmAgent(
        name="support",
        model=ScriptedModel(handler=reply),
        tools=[LongRunningFunctionTool(request_refund)],
    )
    after: list[Any] = []

    def close_ticket(node_input: str) -> str:
        after.append(node_input)
        return "closed"

    workflow = Workflow(name="desk", edges=[(START, agent, close_ticket)])
    run = await Run(session_service, workflow).start()
    events = await run.send(message("refund please"))
    assert outputs(events) == {}
    assert after == []  # nothing downstream ran while the agent waits

    events = await run.send(answer("refund-1", "approved", name="request_refund"))
    assert outputs(events) == {
        "desk@1/support@1": "Refund approved.",
        "desk@1/close_ticket@1": "closed",
    }
    assert after == ["Refund approved."]


async def test_a_tool_node_is_called_with_its_input_and_writes_state(
    session_service: BaseSessionService,
) -> None:
    def convert(amount: float, currency: str, tool_context: ToolContext) -> dict[str, Any]:
        """Convert an amount."""
        tool_context.state["converted"] = currency
        return {"amount": amount * 2, "currency": currency}

    def order(node_input: Any) -> dict[str, Any]:
        return {"amount": 10.0, "currency": "EUR"}

    workflow = Workflow(name="money", edges=[(START, order, FunctionTool(convert))])
    run = await Run(session_service, workflow).start()
    events = await run.send(message("go"))
    assert outputs(events)["money@1/convert@1"] == {"amount": 20.0, "currency": "EUR"}
    assert (await run.session()).state == {"converted": "EUR"}


async def test_parallel_agent_nodes_do_not_see_each_other(
    session_service: BaseSessionService,
) -> None:
    pro_model = ScriptedModel(replies=["Pro: cheap."])
    con_model = ScriptedModel(replies=["Con: slow."])

    def topic(node_input: Any) -> str:
        return "trains"

    def weigh(node_input: dict[str, Any]) -> str:
        return f"{node_input['pro']} / {node_input['con']}"

    from adk_runtime.workflow import JoinNode

    pro = LlmAgent(name="pro", model=pro_model)
    con = LlmAgent(name="con", model=con_model)
    workflow = Workflow(
        name="debate", edges=[(START, topic, (pro, con), JoinNode(name="both"), weigh)]
    )
    run = await Run(session_service, workflow).start()
    events = await run.send(message("debate trains"))
    assert outputs(events)["debate@1/weigh@1"] == "Pro: cheap. / Con: slow."
    # each saw the user's message and its own input, never the other's events
    assert _texts(pro_model.requests[0]) == ["user:debate trains", "user:trains"]
    assert _texts(con_model.requests[0]) == ["user:debate trains", "user:trains"]
    branches = {e.author: e.branch for e in events if e.author in ("pro", "con")}
    assert branches == {"pro": "debate.pro", "con": "debate.con"}


async def test_each_turn_asks_the_agent_node_afresh(session_service: BaseSessionService) -> None:
    model = ScriptedModel(replies=["first answer", "second answer"])

    def ask(node_input: Any) -> str:
        return f"say something about {node_input.parts[0].text}"

    workflow = Workflow(name="turns", edges=[(START, ask, LlmAgent(name="talker", model=model))])
    run = await Run(session_service, workflow).start()
    assert outputs(await run.send(message("cats")))["turns@1/talker@1"] == "first answer"
    assert outputs(await run.send(message("dogs")))["turns@1/talker@1"] == "second answer"
    # the second turn's input was committed and asked, after the first turn's exchange
    assert _texts(model.requests[1]) == [
        "user:cats",
        "user:say something about cats",
        "model:first answer",
        "user:dogs",
        "user:say something about dogs",
    ]


async def test_an_llm_agent_marked_parallel_worker_runs_once_per_item(
    session_service: BaseSessionService,
) -> None:
    seen: list[list[str]] = []

    async def reply(request: Any) -> str:
        await asyncio.sleep(0.01)  # the items' runs overlap
        seen.append([p.text for c in request.contents for p in c.parts or [] if p.text])
        return f"{seen[-1][-1]} in French"

    translator = LlmAgent(
        name="translate", model=ScriptedModel(handler=reply), parallel_worker=True
    )

    def words(node_input: Any) -> list[str]:
        return ["cat", "dog", "bird"]

    workflow = Workflow(name="words", edges=[(START, words, translator)])
    run = await Run(session_service, workflow).start()
    events = await run.send(message("go"))

    assert outputs(events)["words@1/translate@1"] == [
        "cat in French",
        "dog in French",
        "bird in French",
    ]
    # each item was its own agent run, on its own branch
    branches = {e.branch for e in events if e.author == "translate" and e.content is not None}
    assert len(branches) == 3
    assert sorted(seen) == [["go", "bird"], ["go", "cat"], ["go", "dog"]]  # none saw another


async def test_run_node_puts_an_agent_child_on_the_branch_and_in_the_scope_asked(
    session_service: BaseSessionService,
) -> None:
    model = ScriptedModel(handler=lambda request: f"answer {len(request.contents)}")
    agent = LlmAgent(name="helper", model=model)
    other = LlmAgent(name="other", model=model)

    async def ask_twice(ctx: NodeContext) -> list[Any]:
        return [
            await ctx.run_node(agent, "one"),
            await ctx.run_node(agent, "two"),  # same branch: sees the first run
            await ctx.run_node(agent, "three", use_sub_branch=True),  # a branch of its own
            await ctx.run_node(agent, "four", override_branch="shared"),
            await ctx.run_node(other, "five", override_branch="shared"),  # sees "four"
            await ctx.run_node(agent, "six", override_isolation_scope="private"),
        ]

    workflow = Workflow(name="wf", edges=[(START, ask_twice)])
    run = await Run(session_service, workflow).start()
    events = await run.send(message("go"))
    asked = [_texts(r) for r in model.requests]
    assert asked[0] == ["user:go", "user:one"]
    assert asked[1] == ["user:go", "user:one", "model:answer 2", "user:two"]
    assert asked[2] == ["user:go", "user:three"]
    assert asked[3] == ["user:go", "user:four"]
    assert asked[4][:2] == ["user:go", "user:four"]  # then helper's answer, as context
    assert "answer 2" in asked[4][3]
    assert asked[4][-1] == "user:five"
    by_input = {
        e.content.parts[0].text: (e.branch, e.isolation_scope)
        for e in events
        if e.author == "user" and e.content is not None and e.node_info.path
    }
    assert by_input == {
        "one": ("wf.ask_twice.helper", None),
        "two": ("wf.ask_twice.helper", None),
        "three": ("wf.ask_twice.helper@3", None),
        "four": ("shared", None),
        "five": ("shared", None),
        "six": ("wf.ask_twice.helper", "private"),
    }
    assert outputs(events)["wf@1/ask_twice@1"][5] == "answer 1"  # its scope held only its input


async def test_branch_settings_of_run_node_are_for_agent_children(
    session_service: BaseSessionService,
) -> None:
    def plain(node_input: Any) -> Any:
        return node_input

    async def parent(ctx: NodeContext) -> Any:
        return await ctx.run_node(plain, "x", use_sub_branch=True)

    run = await Run(session_service, Workflow(name="wf", edges=[(START, parent)])).start()
    with pytest.raises(WorkflowConfigurationError, match="apply to an agent child"):
        await run.send(message("go"))
