"""Function calls written in text (Gemma 3): the request rewrite and the reply parsing."""

from __future__ import annotations

import pytest
from google.genai import types

from adk_runtime.errors import UnsupportedFeatureError
from adk_runtime.models import LlmRequest, LlmResponse
from adk_runtime.models._text_tools import call_from_text, tools_as_text

NAMES = frozenset({"search", "get_time"})


def reply(*texts: str, partial: bool = False) -> LlmResponse:
    parts = [types.Part(text=text) for text in texts]
    return LlmResponse(content=types.Content(role="model", parts=parts), partial=partial)


def call_of(response: LlmResponse) -> types.FunctionCall | None:
    assert response.content is not None
    [part] = response.content.parts or []
    return part.function_call


@pytest.mark.parametrize(
    ("text", "name", "args"),
    [
        ('{"name": "search", "parameters": {"q": "news"}}', "search", {"q": "news"}),
        ('```json\n{"name": "search", "args": {"q": "a}b"}}\n```', "search", {"q": "a}b"}),
        ('```tool_code\n{"function": "get_time"}\n```', "get_time", {}),
        ('I will look. {"name": "search", "arguments": {"q": 1}}', "search", {"q": 1}),
        # the last call is the model's final word
        ('{"name": "search", "parameters": {"q": 1}} no, {"name": "get_time"}', "get_time", {}),
        # a later object that is no call does not hide the call
        ('{"name": "search", "parameters": {}} then {"note": "x"}', "search", {}),
    ],
)
def test_a_json_call_to_a_declared_function_becomes_a_call(
    text: str, name: str, args: dict[str, object]
) -> None:
    response = reply(text)
    call_from_text(response, NAMES)
    call = call_of(response)
    assert call is not None
    assert (call.name, call.args) == (name, args)


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "delete_all", "parameters": {}}',  # not declared
        '{"name": "search", "parameters": "q=news"}',  # arguments not an object
        '{"name": "search", "parameters": {"q": "news"}',  # cut off
        "search the web for me",
        '["search"]',
        "",
    ],
)
def test_text_that_is_no_call_to_a_declared_function_stays_text(text: str) -> None:
    response = reply(text)
    call_from_text(response, NAMES)
    assert call_of(response) is None
    assert response.content is not None
    assert response.content.parts[0].text == text  # type: ignore[index]


def test_partial_replies_several_parts_and_no_declared_functions_are_left_alone() -> None:
    call = '{"name": "search", "parameters": {}}'
    for response, names in (
        (reply(call, partial=True), NAMES),
        (reply(call, "more"), NAMES),
        (reply(call), frozenset[str]()),
    ):
        before = response.model_copy(deep=True)
        call_from_text(response, names)
        assert response == before


def test_the_request_rewrite_keeps_the_original_and_text_only_history() -> None:
    declaration = types.FunctionDeclaration(
        name="search", description="Search.", parameters_json_schema={"type": "object"}
    )
    request = LlmRequest(model="gemma-3-4b-it")
    request.config.system_instruction = "Be brief."
    request.config.tools = [types.Tool(function_declarations=[declaration])]
    request.config.tool_config = types.ToolConfig(
        function_calling_config=types.FunctionCallingConfig(
            mode=types.FunctionCallingConfigMode.ANY
        )
    )
    image = types.Part.from_bytes(data=b"png", mime_type="image/png")
    request.contents = [
        types.Content(role="user", parts=[types.Part(text="Find it")]),
        types.Content(
            role="model",
            parts=[
                types.Part(function_call=types.FunctionCall(id="adk-1", name="search", args={}))
            ],
        ),
        types.Content(
            role="user",
            parts=[
                types.Part(
                    function_response=types.FunctionResponse(
                        id="adk-1", name="search", response={"hits": ["é"]}
                    )
                ),
                image,
            ],
        ),
    ]
    before = request.model_copy(deep=True)
    rewritten, names = tools_as_text(request, "gemma-3-4b-it")
    assert request == before
    assert names == {"search"}
    assert rewritten.config.tools is None
    assert rewritten.config.tool_config is None
    instruction = rewritten.config.system_instruction
    assert isinstance(instruction, str)
    assert instruction.startswith("Be brief.\n\n")
    assert '{"name": "search", "description": "Search.", "parameters": {"type": "object"}}' in (
        instruction
    )
    call, result = rewritten.contents[1], rewritten.contents[2]
    assert call.role == "model"
    assert call.parts == [types.Part(text='{"name": "search", "parameters": {}}')]
    assert result.role == "user"
    assert result.parts is not None
    assert result.parts[0].text == 'The function search returned: {"hits": ["é"]}'
    assert result.parts[1] == image  # media a tool returned is still shown
    assert rewritten.contents[0] is request.contents[0]


def test_a_request_without_tools_gets_no_listing() -> None:
    request = LlmRequest(model="gemma-3-4b-it")
    request.config.system_instruction = "Be brief."
    rewritten, names = tools_as_text(request, "gemma-3-4b-it")
    assert names == frozenset()
    assert rewritten.config.system_instruction == "Be brief."


@pytest.mark.parametrize(
    ("tool", "named"),
    [
        (types.Tool(url_context=types.UrlContext()), "url_context"),
        (types.Tool(code_execution=types.ToolCodeExecution()), "code_execution"),
    ],
)
def test_built_in_tools_are_refused(tool: types.Tool, named: str) -> None:
    request = LlmRequest(model="gemma-3-4b-it")
    request.config.tools = [tool]
    with pytest.raises(UnsupportedFeatureError, match=named):
        tools_as_text(request, "gemma-3-4b-it")
