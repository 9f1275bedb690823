"""Media a tool returns reaches the model as parts of the function response, and is stored so."""

from __future__ import annotations

import base64
from typing import Any

from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.core.base_tool import BaseTool
from adk_runtime.core.base_toolset import BaseToolset
from adk_runtime.core.readonly_context import ReadonlyContext
from adk_runtime.core.tool_context import ToolContext
from adk_runtime.models import LlmRequest
from adk_runtime.sessions import BaseSessionService, InMemorySessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools.computer_use import ComputerUseTool
from tests.llm.helpers import send, start, stored

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256))
PDF = b"%PDF-1.7 tiny"


def _answer(request: LlmRequest) -> types.FunctionResponse:
    (answer,) = [
        part.function_response
        for part in request.contents[-1].parts or []
        if part.function_response is not None
    ]
    return answer


def _blobs(response: types.FunctionResponse) -> list[tuple[str | None, bytes | None]]:
    return [
        (part.inline_data.mime_type, part.inline_data.data)
        for part in response.parts or []
        if part.inline_data is not None
    ]


class _Screen(BaseToolset):
    """A computer-use action of one's own (computer-use actions are offered by toolsets)."""

    def __init__(self, tool: ComputerUseTool) -> None:
        super().__init__()
        self.tool = tool

    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        return [self.tool]

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        llm_request.tools_dict[self.tool.name] = self.tool


async def _call(service: BaseSessionService, tool: Any) -> tuple[types.FunctionResponse, Any]:
    """Run one call of ``tool``: what the model got back, and the runner."""
    name = tool.tool.name if isinstance(tool, _Screen) else tool.__name__
    model = ScriptedModel(replies=[function_call(name, {}, id="c1"), "seen"])
    runner = await start(LlmAgent(name="viewer", model=model, tools=[tool]), service)
    await send(runner, "show me")
    return _answer(model.requests[-1]), runner


async def test_an_image_part_a_tool_returns_is_an_image_for_the_model_and_in_the_store(
    session_service: BaseSessionService,
) -> None:
    def chart() -> types.Part:
        """Draw the chart."""
        return types.Part.from_bytes(data=PNG, mime_type="image/png")

    answer, runner = await _call(session_service, chart)
    assert answer.response == {}
    assert _blobs(answer) == [("image/png", PNG)]

    # read back from the store (a fresh read on every backend): the bytes are intact
    session = await stored(runner)
    (kept,) = [r for e in session.events for r in e.get_function_responses()]
    assert kept.response == {}
    assert _blobs(kept) == [("image/png", PNG)]


async def test_media_inside_a_result_is_taken_out_and_the_rest_stays(
    session_service: BaseSessionService,
) -> None:
    def report() -> dict[str, Any]:
        """Write the report."""
        return {
            "title": "Q3",
            "figures": [
                types.Part.from_bytes(data=PNG, mime_type="image/png"),
                types.Part.from_uri(file_uri="gs://bucket/q3.pdf", mime_type="application/pdf"),
            ],
            "appendix": types.Part.from_bytes(data=PDF, mime_type="application/pdf"),
            "notes": ["checked", {"by": "ana"}],
        }

    answer, runner = await _call(session_service, report)
    assert answer.response == {"title": "Q3", "notes": ["checked", {"by": "ana"}]}
    assert _blobs(answer) == [("image/png", PNG), ("application/pdf", PDF)]
    uris = [p.file_data.file_uri for p in answer.parts or [] if p.file_data is not None]
    assert uris == ["gs://bucket/q3.pdf"]
    # in the order the result holds them
    kinds = ["inline" if p.inline_data else "file" for p in answer.parts or []]
    assert kinds == ["inline", "file", "inline"]

    session = await stored(runner)
    (kept,) = [r for e in session.events for r in e.get_function_responses()]
    assert kept == answer.model_copy(update={"id": "c1"})


async def test_a_list_of_images_leaves_an_empty_response() -> None:
    def frames() -> list[types.Part]:
        """The two frames."""
        return [
            types.Part.from_bytes(data=PNG, mime_type="image/png"),
            types.Part.from_bytes(data=PNG[::-1], mime_type="image/png"),
        ]

    answer, _ = await _call(InMemorySessionService(), frames)
    assert answer.response == {}
    assert _blobs(answer) == [("image/png", PNG), ("image/png", PNG[::-1])]


async def test_parts_without_media_and_media_nested_deeper_stay_in_the_response() -> None:
    def words() -> types.Part:
        """Just text."""
        return types.Part(text="hello")

    answer, _ = await _call(InMemorySessionService(), words)
    assert answer.parts is None
    assert answer.response is not None
    assert answer.response["text"] == "hello"

    def deep() -> dict[str, Any]:
        """Media three levels down is not looked for."""
        return {"a": {"b": {"c": "plain"}}, "n": 1}

    answer, _ = await _call(InMemorySessionService(), deep)
    assert answer.parts is None
    assert answer.response == {"a": {"b": {"c": "plain"}}, "n": 1}


async def test_a_computer_use_tool_s_screenshot_is_an_image_from_the_call_on() -> None:
    async def look() -> dict[str, Any]:
        """Take a screenshot."""
        data = base64.b64encode(PNG).decode("ascii")
        return {"image": {"data": data, "mimetype": "image/png"}, "url": "https://example.com"}

    answer, runner = await _call(
        InMemorySessionService(), _Screen(ComputerUseTool(func=look, screen_size=(1000, 1000)))
    )
    assert answer.response == {"url": "https://example.com"}
    assert _blobs(answer) == [("image/png", PNG)]
    session = await stored(runner)
    (kept,) = [r for e in session.events for r in e.get_function_responses()]
    assert _blobs(kept) == [("image/png", PNG)]


async def test_a_screenshot_that_is_not_base64_stays_text() -> None:
    async def look() -> dict[str, Any]:
        """Take a broken screenshot."""
        return {"image": {"data": "not base64!", "mimetype": "image/png"}, "url": "u"}

    answer, _ = await _call(
        InMemorySessionService(), _Screen(ComputerUseTool(func=look, screen_size=(1000, 1000)))
    )
    assert answer.parts is None
    assert answer.response == {
        "image": {"data": "not base64!", "mimetype": "image/png"},
        "url": "u",
    }


async def test_a_plain_tool_s_image_dict_is_its_own_json_not_a_screenshot() -> None:
    def look() -> dict[str, Any]:
        """Describe an image (not a computer action)."""
        data = base64.b64encode(PNG).decode("ascii")
        return {"image": {"data": data, "mimetype": "image/png"}}

    answer, _ = await _call(InMemorySessionService(), look)
    assert answer.parts is None
    assert answer.response == {
        "image": {"data": base64.b64encode(PNG).decode("ascii"), "mimetype": "image/png"}
    }


class _Scanner(BaseTool):
    """A tool with media in a shape of its own (hex), split out by its ``response_media``."""

    def __init__(self) -> None:
        super().__init__(name="scan", description="Scan a page.")

    def _get_declaration(self) -> types.FunctionDeclaration:
        return types.FunctionDeclaration(name=self.name, description=self.description)

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        return {"scan_hex": PDF.hex(), "pages": 1}

    def response_media(
        self, response: dict[str, Any]
    ) -> tuple[dict[str, Any], list[types.FunctionResponsePart]] | None:
        if "scan_hex" not in response:
            return None
        rest = {key: value for key, value in response.items() if key != "scan_hex"}
        data = bytes.fromhex(response["scan_hex"])
        return rest, [types.FunctionResponsePart.from_bytes(data=data, mime_type="application/pdf")]


async def test_a_tool_s_response_media_hook_splits_its_own_media_shape(
    session_service: BaseSessionService,
) -> None:
    model = ScriptedModel(replies=[function_call("scan", {}, id="c1"), "read"])
    runner = await start(LlmAgent(name="reader", model=model, tools=[_Scanner()]), session_service)
    await send(runner, "scan it")
    answer = _answer(model.requests[-1])
    assert answer.response == {"pages": 1}
    assert _blobs(answer) == [("application/pdf", PDF)]
    session = await stored(runner)
    (kept,) = [r for e in session.events for r in e.get_function_responses()]
    assert kept.response == {"pages": 1}
    assert _blobs(kept) == [("application/pdf", PDF)]
