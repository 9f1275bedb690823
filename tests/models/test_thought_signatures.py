"""Gemini 3's signatures on the current turn's calls, for calls another model made."""

from __future__ import annotations

from google.genai import types

from adk_runtime.models._thought_signatures import (
    signs_calls,
    with_current_turn_signed,
    without_foreign_signatures,
)
from adk_runtime.utils.content_utils import SKIP_THOUGHT_SIGNATURE_VALIDATOR


def call(name: str, signature: bytes | None = None) -> types.Part:
    return types.Part(function_call=types.FunctionCall(name=name), thought_signature=signature)


def result(name: str) -> types.Content:
    response = types.FunctionResponse(name=name, response={"ok": True})
    return types.Content(role="user", parts=[types.Part(function_response=response)])


def said(role: str, text: str) -> types.Content:
    return types.Content(role=role, parts=[types.Part(text=text)])


def test_only_unsigned_first_calls_of_the_current_turn_get_the_placeholder() -> None:
    contents = [
        said("user", "first question"),
        types.Content(role="model", parts=[call("old")]),  # an earlier turn: left alone
        result("old"),
        said("model", "answer"),
        said("user", "second question"),
        types.Content(
            role="model", parts=[said("model", "Let me look.").parts[0], call("a"), call("b")]
        ),  # type: ignore[index]
        result("a"),
        types.Content(role="model", parts=[call("c", b"gemini's own")]),
        result("c"),
    ]
    signed = with_current_turn_signed(contents)
    signatures = [
        [part.thought_signature for part in content.parts or [] if part.function_call]
        for content in signed
    ]
    assert signatures == [
        [],
        [None],
        [],
        [],
        [],
        [SKIP_THOUGHT_SIGNATURE_VALIDATOR, None],  # parallel calls: the first is signed
        [],
        [b"gemini's own"],
        [],
    ]
    assert signed[1] is contents[1]
    assert contents[5].parts[1].thought_signature is None  # type: ignore[index]


def test_gemini_3_and_later_sign_their_calls() -> None:
    assert signs_calls("gemini-3-pro-preview")
    assert signs_calls("gemini-3.1-flash-lite")
    assert signs_calls("projects/p/locations/global/publishers/google/models/gemini-3-flash")
    assert not signs_calls("gemini-2.5-flash")
    assert not signs_calls("gemma-3-27b-it")


def test_signatures_gemini_did_not_write_stay_out_of_the_request() -> None:
    claude_signature = b"EqQBCkgIARABGAIiQL4x"  # Claude signs with text
    gemini_signature = bytes(range(256))[::7]  # Gemini's are binary
    parts = [
        types.Part(text="Claude's reasoning", thought=True, thought_signature=claude_signature),
        types.Part(thought=True, thought_signature=b"redacted-by-claude"),
        types.Part(text="Claude's answer", thought_signature=claude_signature),
        call("gemini", gemini_signature),
        call("placeholder", SKIP_THOUGHT_SIGNATURE_VALIDATOR),
    ]
    contents = [said("user", "hi"), types.Content(role="model", parts=parts)]
    before = [content.model_copy(deep=True) for content in contents]
    [user, model] = without_foreign_signatures(contents)
    assert user is contents[0]
    assert model.parts == [
        types.Part(text="Claude's answer"),
        call("gemini", gemini_signature),
        call("placeholder", SKIP_THOUGHT_SIGNATURE_VALIDATOR),
    ]
    assert contents == before  # the stored history is left as it was
