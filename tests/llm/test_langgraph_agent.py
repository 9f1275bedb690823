"""LangGraphAgent: a real compiled LangGraph graph as an agent, on every store."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langgraph.checkpoint.memory import MemorySaver
from langgraph.graph import START, MessagesState, StateGraph

from adk_runtime.agents import LlmAgent
from adk_runtime.agents.langgraph_agent import LangGraphAgent, thread_id
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService, InMemorySessionService
from adk_runtime.testing import ScriptedModel
from tests.backends import twin
from tests.llm.helpers import send, start, stored, texts

SEEN: list[list[tuple[str, str]]] = []


def reply(state: MessagesState) -> dict[str, Any]:
    """Record what the graph was given; answer with how many messages it holds."""
    messages: list[BaseMessage] = state["messages"]
    SEEN.append([(m.type, str(m.content)) for m in messages])
    return {
        "messages": [AIMessage(content=f"{len(messages)} messages, last: {messages[-1].content}")]
    }


def graph(checkpointer: Any = None) -> Any:
    builder = StateGraph(MessagesState)
    builder.add_node("reply", reply)
    builder.add_edge(START, "reply")
    return builder.compile(checkpointer=checkpointer)


async def test_without_a_checkpointer_the_conversation_comes_from_the_store(
    session_service: BaseSessionService,
) -> None:
    SEEN.clear()
    agent = LangGraphAgent(name="graph", graph=graph(), instruction="Be short.")
    runner = await start(agent, session_service)
    assert texts(await send(runner, "hello")) == ["2 messages, last: hello"]
    async with twin(session_service) as other:  # another replica: only the store carries it
        second = Runner(app_name="app", agent=agent, session_service=other)
        assert texts(await send(second, "again")) == ["4 messages, last: again"]
    assert SEEN[-1] == [
        ("system", "Be short."),
        ("human", "hello"),
        ("ai", "2 messages, last: hello"),
        ("human", "again"),
    ]
    events = (await stored(runner)).events
    assert [e.author for e in events] == ["user", "graph", "user", "graph"]


async def test_with_a_checkpointer_the_graph_keeps_its_own_state() -> None:
    SEEN.clear()
    agent = LangGraphAgent(name="graph", graph=graph(MemorySaver()), instruction="Be short.")
    runner = await start(agent, InMemorySessionService())
    await send(runner, "one")
    await send(runner, "two")
    assert SEEN[0] == [("system", "Be short."), ("human", "one")]
    # the second turn sent only the new message; the graph's state held the rest
    assert SEEN[1] == [
        ("system", "Be short."),
        ("human", "one"),
        ("ai", "2 messages, last: one"),
        ("human", "two"),
    ]
    key = thread_id("app", "u1", "s1")
    assert len(key) == 64
    assert thread_id("app", "u1", "s1") != thread_id("app", "u1|s1", "")


async def test_a_graph_under_an_llm_agent() -> None:
    SEEN.clear()
    child = LangGraphAgent(name="graph", description="Counts messages.", graph=graph())
    model = ScriptedModel(
        replies=[{"function_call": {"name": "transfer_to_agent", "args": {"agent_name": "graph"}}}]
    )
    root = LlmAgent(name="root", model=model, sub_agents=[child])
    events = await send(await start(root, InMemorySessionService()), "count please")
    assert texts(events)[-1] == "1 messages, last: count please"
