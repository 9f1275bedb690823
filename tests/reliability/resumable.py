"""The agents of the resume crash suite, and a worker process that runs or resumes them.

Run as ``python -m tests.reliability.resumable STORE_JSON SHAPE SESSION TOOL_LOG MODE``
(MODE ``start``: send the message under invocation ``INVOCATION``, with a short lease;
MODE ``resume``: resume that invocation, or send the message if it never got stored). When
a task agent node asks the user (the ``tasknode`` shape), or a function node asks for a
credential (the ``authnode`` shape), either mode sends the reply or the key if it is not
stored yet: a second turn of the same invocation. It prints ``ready`` once the
service is open and ``done`` at the end.

Each agent is a multi-step tool user on a :class:`ScriptedModel` whose replies depend only on
what the request holds, so a resumed run asks for the same calls (same ids) an uninterrupted
run does. Every tool appends ``<call id> <attempt>`` to ``TOOL_LOG`` before it works (one
``write`` on an ``O_APPEND`` file: it survives a SIGKILL), and sleeps a little, so kills land
between, during and after steps.
"""

from __future__ import annotations

import asyncio
import os
import random
import sys
from typing import Any

from google.genai import types

from adk_runtime.agents import BaseAgent, LlmAgent, LoopAgent, ParallelAgent, SequentialAgent
from adk_runtime.core.tool_context import ToolContext
from adk_runtime.errors import InvocationNotOpenError
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing.scripted_model import ScriptedModel, function_call
from adk_runtime.workflow import START, JoinNode, NodeContext, Workflow, node
from adk_runtime.workflow._interrupts import waiting_task_question
from adk_runtime.workflow._root import as_agent
from tests.stores import Store

APP = "resume-crash"
USER = "u"
INVOCATION = "e-crash-suite"
MESSAGE = types.Content(role="user", parts=[types.Part(text="go")])
REPLY = types.Content(role="user", parts=[types.Part(text="4")])
"""The user's reply to the ``tasknode`` shape's question (a second turn, same invocation)."""
API_KEY = "key-4711"
"""The user's answer to the ``authnode`` shape's credential request (kept in memory only)."""


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


class _Tools:
    def __init__(self, log: str | None) -> None:
        self._log = log

    async def _record(self, tool_context: ToolContext) -> None:
        if self._log is not None:
            line = f"{tool_context.function_call_id} {tool_context.attempt}\n".encode()
            fd = os.open(self._log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)
            await asyncio.sleep(random.uniform(0.0, 0.03))

    async def add(self, i: int, tool_context: ToolContext) -> dict[str, Any]:
        """Add to the total."""
        await self._record(tool_context)
        tool_context.state[f"{tool_context.agent_name}:r{i}"] = i + 100
        return {"value": i + 100}

    async def mul(self, i: int, tool_context: ToolContext) -> dict[str, Any]:
        """Multiply."""
        await self._record(tool_context)
        tool_context.state[f"{tool_context.agent_name}:r{i}"] = i * 7
        return {"value": i * 7}


def _handler(name: str, simulate: bool, *, finish: bool = False) -> Any:
    """Step 1: add(1); step 2: mul(2) and add(3) together; step 3: add(4); then the total.

    A round starts after the last text the request holds (the user's message, another
    agent's turn retold, or this agent's previous answer in a loop); call ids carry the
    round, so a loop's rounds never share one.
    """

    async def reply(request: LlmRequest) -> Any:
        if simulate:
            await asyncio.sleep(random.uniform(0.0, 0.02))
        start = _last_text(request)
        mine = [
            part.function_response
            for content in request.contents[start:]
            for part in content.parts or []
            if part.function_response is not None
        ]
        rounds = sum(
            1
            for content in request.contents
            if content.role == "model" and any(part.text for part in content.parts or [])
        )
        done = len(mine)
        if done == 0:
            return function_call("add", {"i": 1}, id=f"{name}-{rounds}-c1")
        if done == 1:
            return [
                function_call("mul", {"i": 2}, id=f"{name}-{rounds}-c2"),
                function_call("add", {"i": 3}, id=f"{name}-{rounds}-c3"),
            ]
        if done == 3:
            return function_call("add", {"i": 4}, id=f"{name}-{rounds}-c4")
        total = sum(int((r.response or {})["value"]) for r in mine)
        if finish:  # a task agent hands its result over
            return function_call("finish_task", {"result": f"{name} total={total}"}, id=f"{name}-f")
        return f"{name} total={total}"

    return reply


def _asker(name: str, simulate: bool) -> Any:
    """A task agent that first asks the user, then works as :func:`_handler` and finishes."""
    work = _handler(name, simulate, finish=True)

    async def reply(request: LlmRequest) -> Any:
        asked = any(
            content.role == "model" and any(part.text for part in content.parts or [])
            for content in request.contents
        )
        if not asked:
            if simulate:
                await asyncio.sleep(random.uniform(0.0, 0.02))
            return "Which number?"
        return await work(request)

    return reply


def _host(simulate: bool) -> Any:
    """Delegates to ``first`` (a task), then ``second`` (single-turn), then sums up."""

    async def reply(request: LlmRequest) -> Any:
        if simulate:
            await asyncio.sleep(random.uniform(0.0, 0.02))
        got = [
            part.function_response.response
            for content in request.contents
            for part in content.parts or []
            if part.function_response is not None
        ]
        if not got:
            return function_call("first", {"request": "count"}, id="host-d1")
        if len(got) == 1:
            return function_call("second", {"request": "count"}, id="host-d2")
        return f"host heard {got[0]} and {got[1]}"

    return reply


def _last_text(request: LlmRequest) -> int:
    """Index of the last content holding text (where this round of the agent starts)."""
    for index in range(len(request.contents) - 1, -1, -1):
        if any(part.text for part in request.contents[index].parts or []):
            return index
    return 0


def _llm(name: str, tools: _Tools, simulate: bool, mode: Any = None) -> LlmAgent:
    return LlmAgent(
        name=name,
        model=ScriptedModel(handler=_handler(name, simulate, finish=mode == "task")),
        tools=[tools.add, tools.mul],
        output_key=f"{name}:answer",
        mode=mode,
    )


SHAPES = ("llm", "sequential", "loop", "parallel", "workflow", "task", "tasknode", "authnode")
TOOL_NAMES = frozenset({"add", "mul"})


def build(shape: str, log: str | None, *, simulate: bool = True) -> BaseAgent:
    """The agent of ``shape`` (one of :data:`SHAPES`), its tools logging to ``log``."""
    tools = _Tools(log)
    if shape == "llm":
        return _llm("calc", tools, simulate)
    pair = [_llm("first", tools, simulate), _llm("second", tools, simulate)]
    if shape == "sequential":
        return SequentialAgent(name="pipeline", sub_agents=pair)
    if shape == "loop":
        return LoopAgent(name="rounds", sub_agents=[pair[0]], max_iterations=2)
    if shape == "parallel":
        return ParallelAgent(name="both", sub_agents=pair)
    if shape == "workflow":
        return as_agent(_workflow(tools, pair, log))
    if shape == "tasknode":  # a task agent node that asks the user, then a function node
        return as_agent(_task_node_workflow(tools, simulate, log))
    if shape == "authnode":  # a function node that needs a credential, an agent, a tally
        return as_agent(_auth_node_workflow(pair[0], log))
    if shape == "task":  # delegated tasks: a task agent, then a single-turn one
        subs = [
            _llm("first", tools, simulate, "task"),
            _llm("second", tools, simulate, "single_turn"),
        ]
        return LlmAgent(name="host", model=ScriptedModel(handler=_host(simulate)), sub_agents=subs)
    raise ValueError(shape)


def _workflow(tools: _Tools, pair: list[LlmAgent], log: str | None) -> Workflow:
    """first (an agent) → tally → (second, an agent; double) → join → finish; the function
    nodes log ``node:<path> <attempt>`` as the tools do."""

    async def record(ctx: NodeContext) -> None:
        await _record_node(ctx, log)

    async def tally(ctx: NodeContext, node_input: str) -> str:
        await record(ctx)
        ctx.state["tally"] = node_input
        return f"continue after: {node_input}"

    async def double(ctx: NodeContext, node_input: str) -> int:
        await record(ctx)
        return len(node_input) * 2

    async def finish(ctx: NodeContext, node_input: dict[str, Any]) -> str:
        await record(ctx)
        ctx.state["finished"] = f"{node_input['second']} | {node_input['double']}"
        return "finished"

    first, second = pair
    return Workflow(
        name="flow",
        edges=[(START, first, tally, (second, double), JoinNode(name="join"), finish)],
    )


def _task_node_workflow(tools: _Tools, simulate: bool, log: str | None) -> Workflow:
    """asker (a task agent that asks the user a question, then works) → tally."""
    asker = LlmAgent(
        name="asker",
        model=ScriptedModel(handler=_asker("asker", simulate)),
        tools=[tools.add, tools.mul],
        output_key="asker:answer",
        mode="task",
    )

    async def tally(ctx: NodeContext, node_input: dict[str, Any]) -> str:
        await _record_node(ctx, log)
        ctx.state["tally"] = node_input["result"]
        return "tallied"

    return Workflow(name="desk", edges=[(START, asker, tally)])


def _key_config() -> Any:
    from fastapi.openapi.models import APIKey, APIKeyIn

    from adk_runtime.auth import AuthConfig, AuthCredential, AuthCredentialTypes

    return AuthConfig(
        auth_scheme=APIKey(**{"in": APIKeyIn.header, "name": "X-Key"}),  # pyright: ignore[reportArgumentType]
        raw_auth_credential=AuthCredential(auth_type=AuthCredentialTypes.API_KEY),
        credential_key="suite_key",
    )


def _auth_node_workflow(agent: LlmAgent, log: str | None) -> Workflow:
    """login (asks for an API key, then reads it) → first (an agent) → tally."""
    config = _key_config()

    @node(auth_config=config)
    async def login(ctx: NodeContext) -> str:
        await _record_node(ctx, log)
        credential = ctx.get_auth_response(config)
        ctx.state["signed_in"] = credential.api_key if credential else None
        return "signed in"

    async def tally(ctx: NodeContext, node_input: str) -> str:
        await _record_node(ctx, log)
        ctx.state["tally"] = node_input
        return "tallied"

    return Workflow(name="gate", edges=[(START, login, agent, tally)])


async def _record_node(ctx: NodeContext, log: str | None) -> None:
    if log is not None:
        line = f"node:{ctx.node_path} {ctx.attempt_count}\n".encode()
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
        await asyncio.sleep(random.uniform(0.0, 0.03))


def runner(service: BaseSessionService, agent: BaseAgent, **kwargs: Any) -> Runner:
    """A Runner of the suite's app."""
    return Runner(app_name=APP, agent=agent, session_service=service, **kwargs)


async def run_to_end(service: BaseSessionService, agent: BaseAgent, session_id: str) -> None:
    """Send the message under :data:`INVOCATION` and let the turn run to its end (and the
    reply's, when a task node asked)."""
    turn = runner(service, agent)
    async for _ in turn.run_async(
        user_id=USER, session_id=session_id, new_message=MESSAGE, invocation_id=INVOCATION
    ):
        pass
    await reply_if_asked(service, turn, session_id)


async def reply_if_asked(service: BaseSessionService, turn: Runner, session_id: str) -> None:
    """Send :data:`REPLY` if a task node's question waits for it (a plain message), or
    :data:`API_KEY` if a credential request does (a function response)."""
    session = await service.get_session(app_name=APP, user_id=USER, session_id=session_id)
    assert session is not None
    if waiting_task_question(session.events) is not None:
        async for _ in turn.run_async(user_id=USER, session_id=session_id, new_message=REPLY):
            pass
    answered = {r.id for event in session.events for r in event.get_function_responses()}
    for event in session.events:
        for call in event.get_function_calls():
            if call.name == "adk_request_credential" and call.id not in answered:
                response = types.FunctionResponse(
                    id=call.id, name=call.name, response={"result": API_KEY}
                )
                key = types.Content(role="user", parts=[types.Part(function_response=response)])
                async for _ in turn.run_async(
                    user_id=USER, session_id=session_id, new_message=key, invocation_id=INVOCATION
                ):
                    pass


async def main(store: Store, shape: str, session_id: str, log: str, mode: str) -> None:
    """Start (with a short lease, to be killed) or resume the suite's invocation."""
    service = store.open()
    agent = build(shape, log)
    _say("ready")
    if mode == "start":
        turn = runner(service, agent, session_lease_seconds=0.5)
        async for _ in turn.run_async(
            user_id=USER, session_id=session_id, new_message=MESSAGE, invocation_id=INVOCATION
        ):
            pass
        await reply_if_asked(service, turn, session_id)
    else:
        resumer = runner(service, agent, session_wait_seconds=30)
        try:
            async for _ in resumer.run_async(
                user_id=USER, session_id=session_id, invocation_id=INVOCATION
            ):
                pass
        except InvocationNotOpenError:
            pass  # it had finished before the kill, or never started
        session = await service.get_session(app_name=APP, user_id=USER, session_id=session_id)
        assert session is not None
        if not any(event.invocation_id == INVOCATION for event in session.events):
            await run_to_end(service, agent, session_id)  # the message was never stored
        else:
            await reply_if_asked(service, resumer, session_id)  # killed before the reply
    await service.close()
    _say("done")


if __name__ == "__main__":
    _store, _shape, _sid, _log, _mode = sys.argv[1:6]
    asyncio.run(main(Store.from_json(_store), _shape, _sid, _log, _mode))
