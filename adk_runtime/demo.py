"""The demo agent: a notes and to-do assistant (an LlmAgent with function tools).

By default it runs on :class:`DemoModel`, an offline deterministic model that picks a tool
from the user's words, so the demo needs no network and no API key; ``build_agent("gemini-…")``
uses Gemini instead (with ``GOOGLE_API_KEY`` set).

- ``remember <fact>``: ``remember_fact`` adds the fact to ``user:notes`` (every session of the
  user sees it) unless it is there already, so running the demo again adds nothing twice;
- ``todo <item>`` / ``done <n>``: ``add_todo`` / ``complete_todo`` keep the session's to-do list;
- ``what do you remember?`` / ``list``: ``recall``;
- ``save``: ``save_notes`` writes the notes to the artifact ``notes.md`` (a new version each time).

Run it with ``adk-runtime demo`` (or ``python -m adk_runtime.cli demo``); this module is the
agent only, so the command line builds on it and not the reverse.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncGenerator
from typing import Any

from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.models import BaseLlm, LlmRequest, LlmResponse
from adk_runtime.models._turn_end import turn_complete
from adk_runtime.tools import ToolContext

__all__ = ["APP_NAME", "FIRST_SCRIPT", "RESUME_SCRIPT", "DemoModel", "build_agent", "root_agent"]

APP_NAME = "notes"
"""The app name: the agent's name, so ``adk-runtime serve`` and ``chat`` use the same one."""
FIRST_SCRIPT = [
    "remember the meeting is at 3pm",
    "todo buy milk",
    "todo book the dentist",
    "done 1",
    "save",
    "what do you remember?",
]
RESUME_SCRIPT = ["remember the demo resumed from storage", "what do you remember?"]
HELP = "Try: 'remember <fact>', 'todo <item>', 'done <n>', 'save' or 'list'."
INSTRUCTION = (
    "You are a notes and to-do assistant. Use the tools to remember facts about the user, "
    "keep the to-do list, recall them and save the notes. Answer in one short sentence."
)


def remember_fact(fact: str, tool_context: ToolContext) -> dict[str, Any]:
    """Remember a fact about the user, for every future conversation.

    A fact already remembered is not added again.

    Args:
        fact: The fact, in the user's words.
        tool_context: Given by the runtime.
    """
    known: list[str] = tool_context.state.get("user:notes", [])
    if any(note.strip().casefold() == fact.strip().casefold() for note in known):
        return {"message": f"I already remember that. I remember {len(known)} thing(s)."}
    notes = [*known, fact]
    tool_context.state["user:notes"] = notes
    return {"message": f"Noted. I remember {len(notes)} thing(s)."}


def add_todo(item: str, tool_context: ToolContext) -> dict[str, Any]:
    """Add an item to this conversation's to-do list.

    Args:
        item: What to do.
        tool_context: Given by the runtime.
    """
    todos = [*tool_context.state.get("todos", []), {"item": item, "done": False}]
    tool_context.state["todos"] = todos
    return {"message": f"Added to-do #{len(todos)}: {item}."}


def complete_todo(number: int, tool_context: ToolContext) -> dict[str, Any]:
    """Mark a to-do item as done.

    Args:
        number: The item's number in the list, from 1.
        tool_context: Given by the runtime.
    """
    todos = [dict(t) for t in tool_context.state.get("todos", [])]
    if not 1 <= number <= len(todos):
        return {"message": f"There is no to-do #{number}."}
    todos[number - 1]["done"] = True
    tool_context.state["todos"] = todos
    return {"message": f"Done: {todos[number - 1]['item']}."}


def recall(tool_context: ToolContext) -> dict[str, Any]:
    """Recite everything remembered about the user and the to-do list."""
    notes: list[str] = tool_context.state.get("user:notes", [])
    todos: list[dict[str, Any]] = tool_context.state.get("todos", [])
    if not notes and not todos:
        return {"message": "I don't remember anything yet. Say 'remember …' or 'todo …'."}
    parts = []
    if notes:
        parts.append("You asked me to remember: " + "; ".join(notes) + ".")
    if todos:
        items = [f"{'✓' if t['done'] else '•'} {t['item']}" for t in todos]
        parts.append("To-do: " + ", ".join(items) + ".")
    return {"message": " ".join(parts)}


async def save_notes(tool_context: ToolContext) -> dict[str, Any]:
    """Save the notes and the to-do list as the markdown artifact notes.md."""
    notes: list[str] = tool_context.state.get("user:notes", [])
    todos: list[dict[str, Any]] = tool_context.state.get("todos", [])
    body = "# Notes\n" + "".join(f"- {n}\n" for n in notes) + "\n# To-do\n"
    body += "".join(f"- [{'x' if t['done'] else ' '}] {t['item']}\n" for t in todos)
    part = types.Part.from_bytes(data=body.encode(), mime_type="text/markdown")
    version = await tool_context.save_artifact("notes.md", part)
    tool_context.state["saves"] = tool_context.state.get("saves", 0) + 1
    return {"message": f"Saved notes.md (version {version})."}


TOOLS = [remember_fact, add_todo, complete_todo, recall, save_notes]


def _route(text: str) -> tuple[str, dict[str, Any]] | None:
    """The demo model's 'understanding': a tool and its arguments from the user's words."""
    lowered = text.strip().lower()
    for prefix, tool, arg in (
        ("remember ", "remember_fact", "fact"),
        ("todo ", "add_todo", "item"),
        ("done ", "complete_todo", "number"),
    ):
        if lowered.startswith(prefix):
            value: Any = text.strip()[len(prefix) :].strip()
            if arg == "number":
                value = int(value) if value.isdigit() else 0
            return tool, {arg: value}
    if lowered.startswith("save"):
        return "save_notes", {}
    if "remember" in lowered or lowered.startswith("list"):
        return "recall", {}
    return None


class DemoModel(BaseLlm):
    """An offline, deterministic model for the demo.

    It calls the tool the user's words name (see the module docstring), then answers with the
    tool's ``message``; when streaming, the answer arrives word by word as partial chunks.
    """

    model: str = "adk-runtime-demo"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        """Answer the last turn: a function call for a user message, text for a result."""
        last = llm_request.contents[-1] if llm_request.contents else None
        parts = list(last.parts or []) if last else []
        results = [p.function_response for p in parts if p.function_response]
        if results:
            text = " ".join(str((r.response or {}).get("message", "")) for r in results)
        else:
            route = _route(" ".join(p.text or "" for p in parts))
            if route is not None:
                name, args = route
                call = types.FunctionCall(id=f"call-{uuid.uuid4().hex[:12]}", name=name, args=args)
                yield _response([types.Part(function_call=call)])
                return
            text = HELP
        if stream:
            words = text.split(" ")
            for index, word in enumerate(words):
                chunk = word if index == len(words) - 1 else word + " "
                yield _response([types.Part(text=chunk)], partial=True)
        yield _response([types.Part(text=text)])


def _response(parts: list[types.Part], partial: bool = False) -> LlmResponse:
    content = types.Content(role="model", parts=parts)
    if partial:
        return LlmResponse(content=content, partial=True)
    return LlmResponse(content=content, turn_complete=turn_complete(parts))


def build_agent(model: str | None = None) -> LlmAgent:
    """The notes agent on ``model`` (a model name, e.g. ``gemini-2.5-flash``; default offline)."""
    return LlmAgent(
        name=APP_NAME,
        description="A notes and to-do assistant.",
        model=model or DemoModel(),
        instruction=INSTRUCTION,
        tools=list(TOOLS),
    )


root_agent = build_agent()
