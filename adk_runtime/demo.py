"""The demo agent: a notes and to-do assistant that needs no model and no network.

It understands a few phrases and acts like an agent calling tools: each action is a function
call event, a function response event carrying the state change, and a final answer.

- ``remember <fact>``: adds the fact to ``user:notes`` (kept for every session of the user);
- ``todo <item>`` / ``done <n>``: the session's to-do list (session state);
- ``what do you remember?`` / ``list``: recites notes and to-dos;
- ``save``: writes the notes to the artifact ``notes.md`` (a new version each time).

``python -m adk_runtime.demo`` runs ``adk-runtime demo``.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from google.genai import types

from adk_runtime.agents import BaseAgent, InvocationContext
from adk_runtime.events import Event, EventActions

__all__ = ["APP_NAME", "FIRST_SCRIPT", "RESUME_SCRIPT", "NotesAgent", "root_agent"]

APP_NAME = "notes_demo"
FIRST_SCRIPT = [
    "remember the meeting is at 3pm",
    "todo buy milk",
    "todo book the dentist",
    "done 1",
    "save",
    "what do you remember?",
]
RESUME_SCRIPT = ["remember the demo resumed from storage", "what do you remember?"]

_Tool = tuple[str, dict[str, Any]]


def _text(ctx: InvocationContext) -> str:
    if ctx.user_content and ctx.user_content.parts:
        return (ctx.user_content.parts[0].text or "").strip()
    return ""


def _route(text: str) -> _Tool | None:
    """Pick the 'tool' and its arguments from the user's text (the demo's model)."""
    lowered = text.lower()
    for prefix, tool, arg in (
        ("remember ", "remember_fact", "fact"),
        ("todo ", "add_todo", "item"),
        ("done ", "complete_todo", "number"),
    ):
        if lowered.startswith(prefix):
            return tool, {arg: text[len(prefix) :].strip()}
    if lowered.startswith("save"):
        return "save_notes", {}
    if "remember" in lowered or lowered.startswith("list"):
        return "recall", {}
    return None


class NotesAgent(BaseAgent):
    """Remembers facts in ``user:`` state, keeps to-dos in session state, saves an artifact."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        route = _route(_text(ctx))
        if route is None:
            yield self._say(
                ctx, "Try: 'remember <fact>', 'todo <item>', 'done <n>', 'save' or 'list'."
            )
            return
        name, args = route
        call = types.FunctionCall(id=f"call-{ctx.invocation_id}", name=name, args=args)
        yield self._event(ctx, types.Part(function_call=call))
        result, delta, artifacts = await self._call(ctx, name, args)
        response = types.FunctionResponse(id=call.id, name=name, response=result)
        yield self._event(
            ctx,
            types.Part(function_response=response),
            EventActions(state_delta=delta, artifact_delta=artifacts),
        )
        yield self._say(ctx, str(result["message"]))

    async def _call(
        self, ctx: InvocationContext, name: str, args: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any], dict[str, int]]:
        state = ctx.session.state
        notes: list[str] = list(state.get("user:notes", []))
        todos: list[dict[str, Any]] = [dict(t) for t in state.get("todos", [])]
        if name == "remember_fact":
            notes.append(args["fact"])
            return (
                {"message": f"Noted. I remember {len(notes)} thing(s)."},
                {"user:notes": notes},
                {},
            )
        if name == "add_todo":
            todos.append({"item": args["item"], "done": False})
            return {"message": f"Added to-do #{len(todos)}: {args['item']}."}, {"todos": todos}, {}
        if name == "complete_todo":
            number = int(args["number"]) if args["number"].isdigit() else 0
            if not 1 <= number <= len(todos):
                return {"message": f"There is no to-do #{args['number']}."}, {}, {}
            todos[number - 1]["done"] = True
            return {"message": f"Done: {todos[number - 1]['item']}."}, {"todos": todos}, {}
        if name == "save_notes":
            return await self._save(ctx, notes, todos)
        return {"message": _recital(notes, todos)}, {}, {}

    async def _save(
        self, ctx: InvocationContext, notes: list[str], todos: list[dict[str, Any]]
    ) -> tuple[dict[str, Any], dict[str, Any], dict[str, int]]:
        if ctx.artifact_service is None:
            return {"message": "No artifact store is configured; nothing saved."}, {}, {}
        body = "# Notes\n" + "".join(f"- {n}\n" for n in notes) + "\n# To-do\n"
        body += "".join(f"- [{'x' if t['done'] else ' '}] {t['item']}\n" for t in todos)
        version = await ctx.artifact_service.save_artifact(
            app_name=ctx.app_name,
            user_id=ctx.user_id,
            session_id=ctx.session.id,
            filename="notes.md",
            artifact=types.Part.from_bytes(data=body.encode(), mime_type="text/markdown"),
        )
        message = f"Saved notes.md (version {version})."
        return (
            {"message": message},
            {"saves": ctx.session.state.get("saves", 0) + 1},
            {"notes.md": version},
        )

    def _event(
        self, ctx: InvocationContext, part: types.Part, actions: EventActions | None = None
    ) -> Event:
        return Event(
            invocation_id=ctx.invocation_id,
            author=self.name,
            branch=ctx.branch,
            content=types.Content(role="model", parts=[part]),
            actions=actions or EventActions(),
        )

    def _say(self, ctx: InvocationContext, text: str) -> Event:
        return self._event(ctx, types.Part(text=text))


def _recital(notes: list[str], todos: list[dict[str, Any]]) -> str:
    if not notes and not todos:
        return "I don't remember anything yet. Say 'remember …' or 'todo …'."
    parts = []
    if notes:
        parts.append("You asked me to remember: " + "; ".join(notes) + ".")
    if todos:
        items = [f"{'✓' if t['done'] else '•'} {t['item']}" for t in todos]
        parts.append("To-do: " + ", ".join(items) + ".")
    return " ".join(parts)


root_agent = NotesAgent(name="notes", description="A notes and to-do assistant.")


if __name__ == "__main__":
    from adk_runtime.cli import main

    main(["demo"])
