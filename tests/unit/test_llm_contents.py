"""How the model sees the history: own turns, other agents' turns, branches, late responses."""

from __future__ import annotations

from typing import Any

from google.genai import types

from adk_runtime.agents._contents import build_contents
from adk_runtime.agents._quoting import RETELLING_PREAMBLE, quote
from adk_runtime.events import Event


def text(author: str, value: str, role: str = "model", branch: str | None = None) -> Event:
    content = types.Content(role=role, parts=[types.Part(text=value)])
    return Event(author=author, content=content, branch=branch)


def call(author: str, call_id: str) -> Event:
    part = types.Part(function_call=types.FunctionCall(id=call_id, name="job", args={}))
    return Event(author=author, content=types.Content(role="model", parts=[part]))


def response(author: str, call_id: str, value: Any) -> Event:
    fr = types.FunctionResponse(id=call_id, name="job", response={"v": value})
    return Event(
        author=author, content=types.Content(role="user", parts=[types.Part(function_response=fr)])
    )


def shape(contents: list[types.Content]) -> list[tuple[str | None, str]]:
    out = []
    for content in contents:
        part = content.parts[0]  # type: ignore[index]
        if part.function_call:
            out.append((content.role, f"call {part.function_call.id}"))
        elif part.function_response:
            values = [
                p.function_response.response for p in content.parts or [] if p.function_response
            ]
            out.append((content.role, f"response {values}"))
        else:
            out.append((content.role, " | ".join(p.text or "" for p in content.parts or [])))
    return out


def test_late_responses_follow_their_call() -> None:
    events = [
        text("user", "start", role="user"),
        call("a", "c1"),
        response("a", "c1", "pending"),
        response("user", "c1", "done"),
        text("a", "finished"),
        text("user", "next", role="user"),
    ]
    assert shape(build_contents(events, "a", None, current_turn_only=False)) == [
        ("user", "start"),
        ("model", "call c1"),
        ("user", "response [{'v': 'done'}]"),
        ("model", "finished"),
        ("user", "next"),
    ]


def test_other_agents_are_context_and_branches_are_isolated() -> None:
    events = [
        text("user", "hi", role="user"),
        text("b", "I am b"),
        text("a", "mine", branch="par.a"),
        text("c", "other branch", branch="par.c"),
    ]
    contents = build_contents(events, "a", "par.a", current_turn_only=False)
    assert shape(contents) == [
        ("user", "hi"),
        ("user", f"{RETELLING_PREAMBLE} | [b] said:\n{quote('I am b')}"),
        ("model", "mine"),
    ]


def test_current_turn_only() -> None:
    events = [
        text("user", "old", role="user"),
        text("a", "reply"),
        text("user", "new", role="user"),
    ]
    assert shape(build_contents(events, "a", None, current_turn_only=True)) == [("user", "new")]


def test_instructions_appended_to_an_empty_system_instruction_start_it() -> None:
    from adk_runtime.models import LlmRequest

    request = LlmRequest()
    request.config.system_instruction = ""
    request.append_instructions(["First.", "", "Second."])
    assert request.config.system_instruction == "First.\n\nSecond."
    request.append_instructions(["Third."])
    assert request.config.system_instruction == "First.\n\nSecond.\n\nThird."
