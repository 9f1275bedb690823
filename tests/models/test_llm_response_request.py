"""LlmResponse.create, the empty-reply rule, LlmRequest.append_instructions and class prefixes."""

from __future__ import annotations

import pytest
from google.genai import types

from adk_runtime.models import Gemini, LLMRegistry, LlmRequest, LlmResponse, registry
from adk_runtime.models._empty_reply import EMPTY_REPLY_ERROR_CODE, flag_empty_reply

LOGPROBS = types.LogprobsResult(
    chosen_candidates=[types.LogprobsResultCandidate(token="hi", log_probability=-0.5)],
    top_candidates=[
        types.LogprobsResultTopCandidates(
            candidates=[types.LogprobsResultCandidate(token="hi", log_probability=-0.5)]
        )
    ],
    log_probability_sum=-0.5,
)
CITATIONS = types.CitationMetadata(citations=[types.Citation(start_index=0, end_index=2)])


def _reply(**candidate: object) -> types.GenerateContentResponse:
    return types.GenerateContentResponse(
        candidates=[types.Candidate(**candidate)],  # type: ignore[arg-type]
        model_version="gemini-x",
    )


def test_a_reply_keeps_logprobs_and_citations() -> None:
    content = types.Content(role="model", parts=[types.Part(text="hi")])
    response = LlmResponse.create(
        _reply(
            content=content,
            finish_reason=types.FinishReason.STOP,
            avg_logprobs=-0.5,
            logprobs_result=LOGPROBS,
            citation_metadata=CITATIONS,
        )
    )
    assert response.content == content
    assert response.error_code is None
    assert (response.avg_logprobs, response.logprobs_result) == (-0.5, LOGPROBS)
    assert response.citation_metadata == CITATIONS
    assert response.model_version == "gemini-x"


def test_a_stop_without_parts_is_a_reply_not_an_error() -> None:
    response = LlmResponse.create(
        _reply(content=types.Content(parts=[]), finish_reason=types.FinishReason.STOP)
    )
    assert response.error_code is None
    assert response.finish_reason == types.FinishReason.STOP


def test_another_finish_without_parts_is_an_error_with_what_the_candidate_had() -> None:
    response = LlmResponse.create(
        _reply(
            finish_reason=types.FinishReason.RECITATION,
            finish_message="recited",
            citation_metadata=CITATIONS,
            avg_logprobs=-2.0,
            logprobs_result=LOGPROBS,
        )
    )
    assert response.error_code == "RECITATION"
    assert response.error_message == "recited"
    assert response.citation_metadata == CITATIONS
    assert (response.avg_logprobs, response.logprobs_result) == (-2.0, LOGPROBS)
    assert response.model_version == "gemini-x"


def test_a_blocked_prompt_is_an_error_with_the_block_reason() -> None:
    response = LlmResponse.create(
        types.GenerateContentResponse(
            prompt_feedback=types.GenerateContentResponsePromptFeedback(
                block_reason=types.BlockedReason.SAFETY, block_reason_message="blocked"
            )
        )
    )
    assert (response.error_code, response.error_message) == ("SAFETY", "blocked")


def test_no_candidate_and_no_feedback_is_an_empty_reply() -> None:
    usage = types.GenerateContentResponseUsageMetadata(prompt_token_count=3)
    response = LlmResponse.create(types.GenerateContentResponse(usage_metadata=usage))
    assert response.error_code is None
    assert response.content == types.Content(role="model", parts=[])
    assert response.usage_metadata == usage


def test_function_calls_and_responses_in_order() -> None:
    parts = [
        types.Part(function_call=types.FunctionCall(name="a")),
        types.Part(text="between"),
        types.Part(function_response=types.FunctionResponse(name="a", response={})),
        types.Part(function_call=types.FunctionCall(name="b")),
    ]
    response = LlmResponse(content=types.Content(role="model", parts=parts))
    assert [call.name for call in response.get_function_calls()] == ["a", "b"]
    assert [answer.name for answer in response.get_function_responses()] == ["a"]
    assert LlmResponse().get_function_calls() == []
    assert LlmResponse(content=types.Content(parts=[])).get_function_responses() == []


def _stopped(*parts: types.Part) -> LlmResponse:
    return LlmResponse(
        content=types.Content(role="model", parts=list(parts)),
        finish_reason=types.FinishReason.STOP,
    )


@pytest.mark.parametrize(
    "response",
    [
        _stopped(),
        _stopped(types.Part(text="thinking", thought=True)),
        _stopped(types.Part(text="  \n")),
        LlmResponse(finish_reason=types.FinishReason.STOP),
    ],
    ids=["no-parts", "thought-only", "blank", "no-content"],
)
def test_a_stop_that_says_nothing_is_flagged(response: LlmResponse) -> None:
    flag_empty_reply(response, streamed=False)
    assert response.error_code == EMPTY_REPLY_ERROR_CODE
    assert response.error_message


@pytest.mark.parametrize(
    "response",
    [
        _stopped(types.Part(text="answer")),
        _stopped(types.Part(function_call=types.FunctionCall(name="f"))),
        _stopped(types.Part(inline_data=types.Blob(data=b"x", mime_type="image/png"))),
        LlmResponse(content=types.Content(parts=[]), finish_reason=types.FinishReason.MAX_TOKENS),
        LlmResponse(content=types.Content(parts=[]), finish_reason=None),
        LlmResponse(finish_reason=types.FinishReason.STOP, partial=True),
    ],
    ids=["text", "call", "data", "other-finish", "no-finish", "partial"],
)
def test_a_reply_with_something_or_not_a_stop_is_left_alone(response: LlmResponse) -> None:
    flag_empty_reply(response, streamed=False)
    assert response.error_code is None


def test_a_streamed_reply_is_flagged_only_with_parts() -> None:
    ended = _stopped()
    flag_empty_reply(ended, streamed=True)  # an empty final chunk ends a stream normally
    assert ended.error_code is None
    thought = _stopped(types.Part(text="hm", thought=True))
    flag_empty_reply(thought, streamed=True)
    assert thought.error_code == EMPTY_REPLY_ERROR_CODE


def test_append_instructions_takes_the_text_of_a_content() -> None:
    request = LlmRequest()
    request.append_instructions(["first"])
    added = request.append_instructions(
        types.Content(role="system", parts=[types.Part(text="second"), types.Part(text="")])
    )
    assert added == []
    assert request.config.system_instruction == "first\n\nsecond"
    assert request.contents == []


def test_data_parts_of_an_instruction_go_to_user_contents_with_a_reference() -> None:
    request = LlmRequest()
    blob = types.Blob(data=b"img", mime_type="image/png", display_name="logo")
    file = types.FileData(file_uri="gs://b/doc.pdf", mime_type="application/pdf")
    added = request.append_instructions(
        types.Content(
            parts=[
                types.Part(text="Use these."),
                types.Part(inline_data=blob),
                types.Part(file_data=file),
            ]
        )
    )
    assert request.contents == added
    assert [content.role for content in added] == ["user", "user"]
    first, second = (content.parts or [] for content in added)
    assert first[1].inline_data == blob
    assert second[1].file_data == file
    system = request.config.system_instruction
    assert isinstance(system, str)
    assert system.startswith("Use these.\n\n")
    for reference, detail in (("inline_data_0", "logo"), ("file_data_1", "gs://b/doc.pdf")):
        line = next(line for line in system.split("\n\n") if reference in line)
        assert detail in line
    assert "inline_data_0" in (first[0].text or "")
    assert "file_data_1" in (second[0].text or "")


def test_a_content_system_instruction_grows_by_a_part() -> None:
    request = LlmRequest()
    request.config.system_instruction = types.Content(parts=[types.Part(text="base")])
    request.append_instructions(["more"])
    system = request.config.system_instruction
    assert isinstance(system, types.Content)
    assert [part.text for part in system.parts or []] == ["base", "more"]


@pytest.mark.parametrize("bad", ["one string", 3, ["ok", 3]])
def test_append_instructions_refuses_other_input(bad: object) -> None:
    with pytest.raises(TypeError, match=r"list of str or a types\.Content"):
        LlmRequest().append_instructions(bad)  # type: ignore[arg-type]


def test_a_system_instruction_that_cannot_grow_is_an_error_not_a_silent_drop() -> None:
    request = LlmRequest()
    request.config.system_instruction = {"odd": "dict"}  # type: ignore[assignment]
    with pytest.raises(TypeError, match="dict"):
        request.append_instructions(["lost?"])


def test_a_class_prefix_picks_the_class_and_is_not_part_of_the_model_name() -> None:
    assert LLMRegistry.resolve("gemini:gemini-2.5-flash") is Gemini
    assert LLMRegistry.resolve("Gemini:my-tuned-model") is Gemini
    llm = LLMRegistry.new_llm("GEMINI:my-tuned-model")
    assert isinstance(llm, Gemini)
    assert llm.model == "my-tuned-model"


def test_a_colon_that_names_no_class_stays_in_the_model_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(LLMRegistry, "_registry", dict(LLMRegistry._registry))
    LLMRegistry.register(_Tagged)
    try:
        llm = LLMRegistry.new_llm("tagged-model:v2")
    finally:
        registry._resolve_cached.cache_clear()
    assert isinstance(llm, _Tagged)
    assert llm.model == "tagged-model:v2"


class _Tagged(Gemini):
    @classmethod
    def supported_models(cls) -> list[str]:
        return [r"tagged-model:.*"]
