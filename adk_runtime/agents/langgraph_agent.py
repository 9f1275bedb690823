"""``LangGraphAgent``: a compiled LangGraph graph run as an agent of the tree.

Each turn the graph is invoked with ``{"messages": [...]}`` and the last message of its
final state becomes the agent's event. Without a checkpointer the messages are the whole
conversation between the user and this agent, rebuilt from the session's committed events
(so the conversation is as durable as the session store); with one the graph keeps its own
state under a thread id derived from the session, and gets only the user's latest messages.
``instruction`` is sent first, as a system message, when the graph has no messages yet.

Needs the ``langgraph`` extra (``pip install 'adk-runtime[langgraph]'``).
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncGenerator
from typing import Any

from google.genai import types
from pydantic import ConfigDict

from adk_runtime.core.base_agent import BaseAgent
from adk_runtime.core.invocation_context import InvocationContext
from adk_runtime.errors import ConfigurationError
from adk_runtime.events import Event
from adk_runtime.utils.content_utils import extract_text_from_content

try:
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
    from langgraph.graph.state import CompiledStateGraph
except ImportError as exc:  # pragma: no cover - exercised without the extra only
    raise ConfigurationError(
        "LangGraphAgent needs LangGraph, which is not installed: "
        "pip install 'adk-runtime[langgraph]'."
    ) from exc

__all__ = ["LangGraphAgent", "thread_id"]


def thread_id(app_name: str, user_id: str, session_id: str) -> str:
    """The checkpointer thread of a session: a digest of its app, user and id.

    Session ids are unique only per app and user, so all three count; each is prefixed by
    its length so that no id can pass for another triple, and the digest keeps the user id
    out of the checkpointer's storage.
    """
    key = "|".join(f"{len(part)}:{part}" for part in (app_name, user_id, session_id))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def _reply_text(message: Any) -> str:
    """The text of a LangChain message (its content a string or a list of blocks)."""
    content = getattr(message, "content", message)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            block if isinstance(block, str) else str(block.get("text", ""))
            for block in content
            if isinstance(block, str) or (isinstance(block, dict) and block.get("type") == "text")
        ]
        return "".join(texts)
    return str(content)


class LangGraphAgent(BaseAgent):
    """Runs a compiled LangGraph graph (see the module docstring).

    Attributes:
        graph: The compiled graph; its state has a ``messages`` list.
        instruction: A system message for the graph's first turn.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    graph: CompiledStateGraph  # type: ignore[type-arg]
    instruction: str = ""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        session = ctx.session
        config: Any = {
            "configurable": {"thread_id": thread_id(session.app_name, session.user_id, session.id)}
        }
        earlier: list[Any] = []
        if self.graph.checkpointer:
            state = await self.graph.aget_state(config)
            earlier = list((state.values or {}).get("messages", []))
        messages: list[BaseMessage] = []
        if self.instruction and not earlier:
            messages.append(SystemMessage(content=self.instruction))
        messages += self._messages(session.events)
        final = await self.graph.ainvoke({"messages": messages}, config)
        reply = _reply_text(final["messages"][-1])
        yield Event(
            invocation_id=ctx.invocation_id,
            author=self.name,
            branch=ctx.branch,
            content=types.Content(role="model", parts=[types.Part(text=reply)]),
        )

    def _messages(self, events: list[Event]) -> list[BaseMessage]:
        """The user's latest messages (with a checkpointer), or the whole conversation."""
        if self.graph.checkpointer:
            latest: list[BaseMessage] = []
            for event in reversed(events):
                if event.author != "user":
                    if latest:
                        break
                    continue
                text = extract_text_from_content(event.content)
                if text:
                    latest.insert(0, HumanMessage(content=text))
            return latest
        conversation: list[BaseMessage] = []
        for event in events:
            text = extract_text_from_content(event.content)
            if not text:
                continue
            if event.author == "user":
                conversation.append(HumanMessage(content=text))
            elif event.author == self.name:
                conversation.append(AIMessage(content=text))
        return conversation
