"""The Interactions API conversions, part by part and event by event (google-genai's own types).

The end-to-end behaviour (a real client, a fake API, every store) is in
``test_gemini_interactions.py``; these pin what each kind of part, step and event becomes.
"""

from __future__ import annotations

import base64
import logging
from typing import Any

import pytest
from google.genai import interactions as gi
from google.genai import types

from adk_runtime.models import LlmRequest
from adk_runtime.models import interactions_utils as iu


def content(role: str, *parts: types.Part) -> types.Content:
    return types.Content(role=role, parts=list(parts))


def test_parts_become_steps_of_their_kind() -> None:
    signature = b"\x01sig"
    steps = iu.contents_to_steps(
        [
            content(
                "user",
                types.Part(text="look"),
                types.Part.from_bytes(data=b"\x89PNG", mime_type="image/png"),
            ),
            content(
                "model",
                types.Part(text="calling"),
                types.Part(function_call=types.FunctionCall(id="c1", name="f", args={"a": 1})),
                types.Part(thought=True, thought_signature=signature),
                types.Part(thought=True, text="unsigned thinking"),  # nothing to send back
            ),
            content(
                "user",
                types.Part(
                    function_response=types.FunctionResponse(
                        id="c1", name="f", response={"error": "boom"}
                    )
                ),
                types.Part(
                    file_data=types.FileData(
                        file_uri="gs://b/report.pdf", mime_type="application/pdf"
                    )
                ),
            ),
            content(
                "model",
                types.Part(
                    executable_code=types.ExecutableCode(code="1+1", language=types.Language.PYTHON)
                ),
                types.Part(
                    code_execution_result=types.CodeExecutionResult(
                        outcome=types.Outcome.OUTCOME_DEADLINE_EXCEEDED, output="late"
                    )
                ),
            ),
        ]
    )
    assert steps == [
        {"type": "user_input", "content": [{"type": "text", "text": "look"}]},
        {
            "type": "user_input",
            "content": [
                {
                    "type": "image",
                    "mime_type": "image/png",
                    "data": base64.b64encode(b"\x89PNG").decode(),
                }
            ],
        },
        {"type": "model_output", "content": [{"type": "text", "text": "calling"}]},
        {"type": "function_call", "id": "c1", "name": "f", "arguments": {"a": 1}},
        {"type": "thought", "signature": base64.b64encode(signature).decode()},
        {
            "type": "function_result",
            "name": "f",
            "call_id": "c1",
            "result": {"error": "boom"},
            "is_error": True,
        },
        {
            "type": "user_input",
            "content": [
                {"type": "document", "mime_type": "application/pdf", "uri": "gs://b/report.pdf"}
            ],
        },
        {
            "type": "code_execution_call",
            "id": "",
            "arguments": {"code": "1+1", "language": "python"},
        },
        {"type": "code_execution_result", "call_id": "", "result": "late", "is_error": True},
    ]
    assert iu.part_to_step(types.Part()) is None


def test_the_deprecated_flat_form_still_answers() -> None:
    with pytest.warns(DeprecationWarning, match="deprecated"):
        flat = iu.convert_part_to_interaction_content(types.Part(text="hi"))
    assert flat == {"type": "text", "text": "hi"}
    with pytest.warns(DeprecationWarning, match="deprecated"):
        result = iu.convert_part_to_interaction_content(
            types.Part(
                function_response=types.FunctionResponse(id="c", name="f", response={"ok": 1})
            )
        )
    assert result == {"type": "function_result", "name": "f", "call_id": "c", "result": {"ok": 1}}


def test_tools_generation_config_and_system_instruction() -> None:
    declared = types.FunctionDeclaration(
        name="find",
        description="Find things.",
        parameters=types.Schema(
            type="OBJECT",
            properties={"q": types.Schema(type="STRING"), "n": types.Schema(type="INTEGER")},
            required=["q"],
        ),
    )
    raw = types.FunctionDeclaration(name="raw", parameters_json_schema={"type": "object"})
    config = types.GenerateContentConfig(
        tools=[
            types.Tool(function_declarations=[declared, raw]),
            types.Tool(google_search=types.GoogleSearch(), url_context=types.UrlContext()),
            types.Tool(code_execution=types.ToolCodeExecution()),
        ],
        system_instruction=types.Content(parts=[types.Part(text="One."), types.Part(text="Two.")]),
        max_output_tokens=64,
        temperature=0.2,
        top_p=0.9,
        seed=7,
        stop_sequences=["END"],
        thinking_config=types.ThinkingConfig(
            thinking_level=types.ThinkingLevel.HIGH, include_thoughts=True
        ),
    )
    assert iu.convert_tools_config_to_interactions_format(config) == [
        {
            "type": "function",
            "name": "find",
            "description": "Find things.",
            "parameters": {
                "type": "object",
                "properties": {"q": {"type": "string"}, "n": {"type": "integer"}},
                "required": ["q"],
            },
        },
        {"type": "function", "name": "raw", "parameters": {"type": "object"}},
        {"type": "google_search"},
        {"type": "url_context"},
        {"type": "code_execution"},
    ]
    assert iu.build_generation_config(config) == {
        "max_output_tokens": 64,
        "stop_sequences": ["END"],
        "seed": 7,
        "temperature": 0.2,
        "top_p": 0.9,
        "thinking_level": "high",
        "thinking_summaries": "auto",
    }
    assert iu.extract_system_instruction(config) == "One.\nTwo."
    assert iu.extract_system_instruction(types.GenerateContentConfig(system_instruction="S")) == "S"
    assert iu.extract_system_instruction(types.GenerateContentConfig()) is None


def test_sampling_the_api_cannot_carry_is_dropped_with_one_warning(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from adk_runtime.models import _interactions_request

    monkeypatch.setattr(_interactions_request, "_warned_dropped", set())
    config = types.GenerateContentConfig(top_k=5, presence_penalty=0.1)
    with caplog.at_level(logging.WARNING, logger=iu.__name__):
        assert iu.build_generation_config(config) == {}
        assert iu.build_generation_config(config) == {}
    [record] = caplog.records
    assert "top_k, presence_penalty" in record.getMessage()


def test_a_chained_request_sends_the_trailing_user_turn_and_the_signatures_before_it() -> None:
    signed = types.Part(function_call=types.FunctionCall(name="f"), thought_signature=b"s")
    contents = [
        content("user", types.Part(text="old")),
        content("model", types.Part(text="said"), signed),
        content(
            "user", types.Part(function_response=types.FunctionResponse(name="f", response={}))
        ),
        content("user", types.Part(text="and this")),
    ]
    latest = iu.latest_turn(contents)
    assert latest[0] == content("model", signed)
    assert latest[1:] == contents[2:]
    request = LlmRequest(model="m", contents=contents, previous_interaction_id="i-1")
    arguments = iu.create_arguments(request, stream=False, service_tier=None)
    assert [step["type"] for step in arguments["input"]] == [
        "function_call",
        "function_result",
        "user_input",
    ]
    assert arguments["previous_interaction_id"] == "i-1"
    whole = iu.create_arguments(
        LlmRequest(model="m", contents=contents), stream=False, service_tier=None
    )
    assert len(whole["input"]) == 5
    assert "previous_interaction_id" not in whole


def test_structured_output_asks_for_json_with_the_schema() -> None:
    config = types.GenerateContentConfig(
        response_schema=types.Schema(type="OBJECT", properties={"x": types.Schema(type="NUMBER")})
    )
    request = LlmRequest(model="m", config=config)
    arguments = iu.create_arguments(request, stream=False, service_tier=None)
    assert arguments["response_format"] == {
        "type": "object",
        "properties": {"x": {"type": "number"}},
    }
    assert arguments["response_mime_type"] == "application/json"


def interaction(**fields: Any) -> gi.Interaction:
    return gi.Interaction.model_validate({"id": "i-9", "model": "gemini-x", **fields})


def test_a_whole_interaction_becomes_one_response() -> None:
    signature = base64.b64encode(b"sig").decode()
    response = iu.convert_interaction_to_llm_response(
        interaction(
            status="requires_action",
            steps=[
                {
                    "type": "thought",
                    "signature": signature,
                    "summary": [{"type": "text", "text": "hmm"}],
                },
                {
                    "type": "model_output",
                    "content": [
                        {
                            "type": "text",
                            "text": "See Oslo.",
                            "annotations": [
                                {
                                    "type": "url_citation",
                                    "url": "https://yr.no",
                                    "title": "Yr",
                                    "start_index": 4,
                                    "end_index": 8,
                                }
                            ],
                        },
                        {
                            "type": "image",
                            "data": base64.b64encode(b"img").decode(),
                            "mime_type": "image/png",
                        },
                    ],
                },
                {
                    "type": "google_search_call",
                    "id": "g",
                    "arguments": {"queries": ["oslo weather"]},
                },
                {"type": "function_call", "id": "c1", "name": "f", "arguments": {"x": 1}},
            ],
            usage={"total_input_tokens": 5, "total_output_tokens": 2, "total_thought_tokens": 4},
        )
    )
    assert response.interaction_id == "i-9"
    assert response.model_version == "gemini-x"
    assert response.finish_reason == types.FinishReason.STOP
    assert response.turn_complete
    assert response.content is not None
    thought, text, image, call = response.content.parts or []
    assert (thought.thought, thought.text, thought.thought_signature) == (True, "hmm", b"sig")
    assert text.text == "See Oslo."
    assert image.inline_data == types.Blob(data=b"img", mime_type="image/png")
    assert call.function_call == types.FunctionCall(id="c1", name="f", args={"x": 1})
    grounding = response.grounding_metadata
    assert grounding is not None
    assert grounding.web_search_queries == ["oslo weather"]
    assert grounding.grounding_chunks == [
        types.GroundingChunk(web=types.GroundingChunkWeb(uri="https://yr.no", title="Yr"))
    ]
    assert response.usage_metadata == types.GenerateContentResponseUsageMetadata(
        prompt_token_count=5, candidates_token_count=2, thoughts_token_count=4, total_token_count=7
    )


@pytest.mark.parametrize(
    ("fields", "code", "message"),
    [
        (
            {"status": "failed", "errors": [{"code": "QUOTA", "message": "no quota"}]},
            "QUOTA",
            "no quota",
        ),
        ({"status": "failed"}, "UNKNOWN_ERROR", "The interaction failed."),
        ({"status": "incomplete"}, "INCOMPLETE", "The interaction ended before"),
        ({"status": "cancelled"}, "CANCELLED", "cancelled"),
    ],
)
def test_an_unfinished_interaction_is_an_error(
    fields: dict[str, Any], code: str, message: str
) -> None:
    response = iu.convert_interaction_to_llm_response(interaction(**fields))
    assert response.error_code == code
    assert message in (response.error_message or "")
    assert response.interaction_id == "i-9"
    assert response.content is None


def events(*raw: dict[str, Any]) -> list[Any]:
    adapter: Any = __import__("pydantic").TypeAdapter(gi.InteractionSSEEvent)
    return [adapter.validate_python(event) for event in raw]


def run_stream(*raw: dict[str, Any]) -> list[Any]:
    state = iu.StreamState()
    replies = [iu.convert_interaction_event_to_llm_response(e, state, "i-1") for e in events(*raw)]
    return [reply for reply in replies if reply is not None]


def test_a_stream_sends_pieces_and_ends_with_the_whole_reply() -> None:
    signature = base64.b64encode(b"sig").decode()
    replies = run_stream(
        {
            "event_type": "interaction.created",
            "interaction": {"id": "i-1", "status": "in_progress"},
        },
        {"event_type": "step.start", "index": 0, "step": {"type": "thought"}},
        {
            "event_type": "step.delta",
            "index": 0,
            "delta": {"type": "thought_summary", "content": {"type": "text", "text": "think"}},
        },
        {
            "event_type": "step.delta",
            "index": 0,
            "delta": {"type": "thought_signature", "signature": signature},
        },
        {"event_type": "step.stop", "index": 0},
        {"event_type": "step.start", "index": 1, "step": {"type": "model_output", "content": []}},
        {"event_type": "step.delta", "index": 1, "delta": {"type": "text", "text": "Hel"}},
        {"event_type": "step.delta", "index": 1, "delta": {"type": "text", "text": "lo"}},
        {"event_type": "step.stop", "index": 1},
        {
            "event_type": "step.start",
            "index": 2,
            "step": {"type": "function_call", "id": "c1", "name": "f", "arguments": {}},
        },
        {
            "event_type": "step.delta",
            "index": 2,
            "delta": {"type": "arguments_delta", "arguments": '{"a": '},
        },
        {
            "event_type": "step.delta",
            "index": 2,
            "delta": {"type": "arguments_delta", "arguments": "[1, 2]}"},
            "metadata": {"total_usage": {"total_tokens": 9}},
        },
        {"event_type": "step.stop", "index": 2},
        {
            "event_type": "interaction.completed",
            "interaction": {"id": "i-1", "status": "requires_action", "model": "gemini-x"},
        },
    )
    *partial, final = replies
    assert all(r.partial and r.interaction_id == "i-1" for r in partial)
    assert [p.text for r in partial for p in r.content.parts if p.text] == ["think", "Hel", "lo"]
    assert not final.partial
    assert final.turn_complete
    assert final.content is not None
    thought, text, call = final.content.parts or []
    assert (thought.text, thought.thought, thought.thought_signature) == ("think", True, b"sig")
    assert text.text == "Hello"  # one part for the step's text deltas
    assert call.function_call == types.FunctionCall(id="c1", name="f", args={"a": [1, 2]})
    assert final.usage_metadata is not None
    assert final.usage_metadata.total_token_count == 9


def test_a_stream_of_arguments_that_are_not_an_object_is_an_error() -> None:
    replies = run_stream(
        {
            "event_type": "step.start",
            "index": 0,
            "step": {"type": "function_call", "id": "c", "name": "f", "arguments": {}},
        },
        {
            "event_type": "step.delta",
            "index": 0,
            "delta": {"type": "arguments_delta", "arguments": "{not json"},
        },
        {"event_type": "step.stop", "index": 0},
    )
    error = replies[-1]
    assert error.error_code == "JSON_PARSE_ERROR"
    assert "'f'" in (error.error_message or "")
    assert "not json" not in (error.error_message or "")  # the arguments stay out of it


def test_stream_errors_and_failed_status_updates_are_errors() -> None:
    [error] = run_stream(
        {"event_type": "error", "error": {"code": "RESOURCE_EXHAUSTED", "message": "slow down"}}
    )
    assert (error.error_code, error.error_message) == ("RESOURCE_EXHAUSTED", "slow down")
    [failed] = run_stream(
        {"event_type": "interaction.status_update", "interaction_id": "i-1", "status": "failed"}
    )
    assert failed.error_code == "UNKNOWN_ERROR"
    assert failed.interaction_id == "i-1"


def test_logs_summarize_and_never_carry_the_payload() -> None:
    secret = "my password is hunter2"
    request = LlmRequest(
        model="m",
        contents=[content("user", types.Part(text=secret))],
        config=types.GenerateContentConfig(
            system_instruction=secret, tools=[types.Tool(google_search=types.GoogleSearch())]
        ),
    )
    arguments = iu.create_arguments(request, stream=True, service_tier="flex")
    line = iu.build_interactions_request_log(
        model="m",
        input_steps=arguments["input"],
        system_instruction=arguments["system_instruction"],
        tools=arguments["tools"],
        stream=True,
    )
    assert "hunter2" not in line
    assert "user_input(text)" in line
    assert "google_search" in line
    whole = interaction(
        status="completed",
        steps=[{"type": "model_output", "content": [{"type": "text", "text": secret}]}],
    )
    assert "hunter2" not in iu.build_interactions_response_log(whole)
    [delta] = events(
        {"event_type": "step.delta", "index": 0, "delta": {"type": "text", "text": secret}}
    )
    assert "hunter2" not in iu.build_interactions_event_log(delta)
    assert "delta=text" in iu.build_interactions_event_log(delta)


def test_a_delta_type_the_sdk_does_not_know_is_dropped_with_a_warning_naming_its_type(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # As the SDK's lenient parsing hands over a delta type it does not know.
    raw = {"type": "hologram", "secret": "s3"}
    unknown = gi.StepDelta.model_construct(
        event_type="step.delta", index=0, delta=gi.UnknownStepDeltaData(raw=raw)
    )
    unhandled = gi.StepDelta(
        event_type="step.delta", index=0, delta={"type": "url_context_call", "arguments": {}}
    )
    assert isinstance(unknown.delta, gi.UnknownStepDeltaData)
    state = iu.StreamState()
    with caplog.at_level(logging.DEBUG, logger=iu.__name__):
        for event in (unknown, unhandled):
            assert iu.convert_interaction_event_to_llm_response(event, state, "i-1") is None
    assert state.parts == []
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warned) == 1
    assert "'hologram'" in warned[0]
    assert "s3" not in caplog.text  # the type, never the payload
    assert "'url_context_call'" in caplog.text  # known to the SDK, not kept: debug only


def test_a_call_whose_step_never_stopped_is_finished_by_the_completed_interaction() -> None:
    *_, final = run_stream(
        {
            "event_type": "step.start",
            "index": 0,
            "step": {"type": "function_call", "id": "c", "name": "f", "arguments": {}},
        },
        {
            "event_type": "step.delta",
            "index": 0,
            "delta": {"type": "arguments_delta", "arguments": '{"k": 1}'},
        },
        {
            "event_type": "interaction.completed",
            "interaction": {"id": "i-1", "status": "requires_action"},
        },
    )
    assert final.content is not None
    [part] = final.content.parts or []
    assert part.function_call == types.FunctionCall(id="c", name="f", args={"k": 1})
