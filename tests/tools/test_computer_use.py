"""Computer use: a model drives an in-memory browser through ComputerUseToolset."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.flows.llm_flows.functions import REQUEST_CONFIRMATION_FUNCTION_CALL_NAME
from adk_runtime.models import Gemini, LlmRequest
from adk_runtime.sessions import BaseSessionService, InMemorySessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools.computer_use import ComputerUseTool, ComputerUseToolset
from adk_runtime.tools.computer_use._navigation import UrlRefusedError, check_url
from tests.llm.fake_gemini import parts_body, serving, text_body
from tests.llm.helpers import send, start, stored, texts
from tests.tools.computer import HOME, MemoryBrowser, NativeBrowser


def browser_agent(
    replies: list[Any],
    computer: MemoryBrowser,
    *,
    model: str = "gemini-2.5-computer-use-preview-10-2025",
    **toolset: Any,
) -> tuple[LlmAgent, ScriptedModel]:
    llm = ScriptedModel(model=model, replies=replies)
    agent = LlmAgent(
        name="browser",
        model=llm,
        tools=[ComputerUseToolset(computer=computer, **toolset)],
    )
    return agent, llm


def computer_use_of(request: LlmRequest) -> types.ComputerUse:
    (found,) = [t.computer_use for t in request.config.tools or [] if isinstance(t, types.Tool)]
    assert found is not None
    return found


def responses_of(request: LlmRequest) -> list[types.FunctionResponse]:
    return [
        part.function_response
        for content in request.contents
        for part in content.parts or []
        if part.function_response is not None
    ]


async def test_the_model_clicks_and_sees_the_screenshot_as_an_image() -> None:
    computer = MemoryBrowser()
    agent, model = browser_agent(
        [function_call("click_at", {"x": 500, "y": 250}, id="c1"), "Clicked."], computer
    )
    runner = await start(agent, InMemorySessionService())
    events = await send(runner, "click the middle of the top half")

    # the model's grid is 1000 x 1000; the screen 1280 x 800
    assert computer.actions == [("initialize",), ("click_at", 640, 200)]
    assert computer.prepared == ["c1"]
    assert texts(events) == ["Clicked."]
    first, second = model.requests
    declared = computer_use_of(first)
    assert declared.environment == types.Environment.ENVIRONMENT_BROWSER
    assert declared.excluded_predefined_functions is None
    # Gemini knows the actions: no function declarations are sent for them
    assert not any(t.function_declarations for t in first.config.tools or [])  # type: ignore[union-attr]
    assert {"click_at", "navigate", "wait_5_seconds", "click", "type"} <= set(first.tools_dict)
    assert all(isinstance(t, ComputerUseTool) for t in first.tools_dict.values())

    (answer,) = responses_of(second)
    assert answer.name == "click_at"
    assert answer.response == {"url": HOME}
    (image,) = answer.parts or []
    assert image.inline_data is not None
    assert image.inline_data.mime_type == "image/png"
    assert image.inline_data.data == computer.shots[0]
    assert computer.shots[0].startswith(b"\x89PNG")

    # the session keeps the screenshot as the image part the model saw (google-adk 2.13)
    session = await stored(runner)
    (kept,) = [r for e in session.events for r in e.get_function_responses()]
    assert kept.response == {"url": HOME}
    (kept_image,) = kept.parts or []
    assert kept_image.inline_data is not None
    assert kept_image.inline_data.data == computer.shots[0]
    await runner.close()
    assert computer.actions[-1] == ("close",)


async def test_every_screenshot_of_the_history_reaches_the_model() -> None:
    computer = MemoryBrowser()
    agent, model = browser_agent(
        [
            function_call("open_web_browser", id="c1"),
            function_call("scroll_document", {"direction": "down"}, id="c2"),
            "Done.",
        ],
        computer,
    )
    runner = await start(agent, InMemorySessionService())
    await send(runner, "scroll")
    answers = responses_of(model.requests[2])
    assert [a.name for a in answers] == ["open_web_browser", "scroll_document"]
    shown = [a.parts[0].inline_data.data for a in answers]  # type: ignore[index,union-attr]
    assert shown == computer.shots
    assert all("image" not in (a.response or {}) for a in answers)


async def test_gemini_3_actions_are_carried_out_with_the_base_methods() -> None:
    computer = MemoryBrowser()
    agent, model = browser_agent(
        [
            function_call("type", {"text": "hi", "press_enter": True}, id="c1"),
            function_call(
                "drag_and_drop",
                {"start_x": 0, "start_y": 0, "end_x": 1000, "end_y": 500},
                id="c2",
            ),
            function_call("scroll", {"x": 100, "y": 100}, id="c3"),
            function_call("wait", {"seconds": 1.5}, id="c4"),
            function_call("press_key", {"key": "Escape"}, id="c5"),
            "Done.",
        ],
        computer,
        model="gemini-3-pro-preview",
    )
    runner = await start(agent, InMemorySessionService())
    await send(runner, "work")
    assert computer.actions[1:] == [
        ("key_combination", "h"),
        ("key_combination", "i"),
        ("key_combination", "Enter"),
        ("drag_and_drop", 0, 0, 1279, 400),
        ("scroll_at", 128, 80, "down", 300),
        ("wait", 2),
        ("key_combination", "Escape"),
    ]
    # Gemini 3 is told which optional actions this computer lacks
    excluded = computer_use_of(model.requests[0]).excluded_predefined_functions
    assert excluded is not None
    assert {"double_click", "right_click", "key_down"} <= set(excluded)


async def test_a_computer_s_own_gemini_3_actions_are_used() -> None:
    computer = NativeBrowser()
    agent, model = browser_agent(
        [
            function_call("click", {"x": 500, "y": 500}, id="c1"),
            function_call("double_click", {"x": 0, "y": 0}, id="c2"),
            function_call("type", {"text": "hello"}, id="c3"),
            "Done.",
        ],
        computer,
        model="gemini-3-flash",
    )
    runner = await start(agent, InMemorySessionService())
    await send(runner, "work")
    assert computer.actions[1:] == [
        ("click", 640, 400, "left"),
        ("double_click", 0, 0),
        ("type_text", "hello", False),
    ]
    excluded = computer_use_of(model.requests[0]).excluded_predefined_functions or []
    assert "double_click" not in excluded
    assert "triple_click" in excluded


async def test_excluded_actions_are_named_for_the_model_version() -> None:
    toolset = ComputerUseToolset(
        computer=MemoryBrowser(), excluded_predefined_functions=["click", "key_combination"]
    )
    names = {tool.name for tool in await toolset.get_tools()}
    assert not names & {"click", "click_at", "key_combination", "press_key", "hotkey"}
    assert {"hover_at", "move", "navigate"} <= names

    async def declared(model: str) -> list[str] | None:
        request = LlmRequest(model=model)
        await toolset.process_llm_request(tool_context=None, llm_request=request)  # type: ignore[arg-type]
        return computer_use_of(request).excluded_predefined_functions

    assert await declared("gemini-2.5-computer-use-preview-10-2025") == [
        "click_at",
        "key_combination",
    ]
    newer = await declared("gemini-3-pro-preview")
    assert newer is not None
    assert newer[:3] == ["click", "press_key", "hotkey"]


async def test_navigate_refuses_private_hosts() -> None:
    computer = MemoryBrowser()
    agent, model = browser_agent(
        [
            function_call("navigate", {"url": "http://169.254.169.254/latest/meta-data"}),
            function_call("navigate", {"url": "http://localhost:8080/admin"}),
            function_call("navigate", {"url": "file:///etc/passwd"}),
            function_call("navigate", {"url": "https://93.184.215.14/page"}),
            "Done.",
        ],
        computer,
    )
    runner = await start(agent, InMemorySessionService())
    await send(runner, "go")
    navigated = [a for a in computer.actions if a[0] == "navigate"]
    assert navigated == [("navigate", "https://93.184.215.14/page")]
    refused = [responses_of(model.requests[i])[-1] for i in (1, 2, 3)]
    for answer in refused:
        assert answer.response is not None
        assert "not opened" in answer.response["error"]
        assert answer.response["url"] == HOME  # the page shown, which Gemini needs
        assert answer.parts  # and its screenshot


@pytest.mark.parametrize(
    "url",
    [
        "http://[::ffff:10.0.0.1]/",
        "http://[64:ff9b::a9fe:a9fe]/",  # NAT64 form of 169.254.169.254
        "http://[2002:a00:1::]/",  # 6to4 form of 10.0.0.1
        "http://[::a9fe:a9fe]/",  # IPv4-compatible form of 169.254.169.254
        "http://metadata.google.internal/",
    ],
)
async def test_navigate_refuses_private_addresses_in_any_form(url: str) -> None:
    with pytest.raises(UrlRefusedError):
        await check_url(url)


async def test_private_hosts_may_be_allowed() -> None:
    computer = MemoryBrowser()
    agent, _ = browser_agent(
        [function_call("navigate", {"url": "http://localhost:8080/"}), "Done."],
        computer,
        allow_private_network_access=True,
    )
    runner = await start(agent, InMemorySessionService())
    await send(runner, "go")
    assert ("navigate", "http://localhost:8080/") in computer.actions


async def test_a_safety_decision_waits_for_the_user(session_service: BaseSessionService) -> None:
    computer = MemoryBrowser()
    risky = {
        "x": 100,
        "y": 100,
        "safety_decision": {"decision": "require_confirmation", "explanation": "Buy it?"},
    }
    agent, model = browser_agent([function_call("click_at", risky, id="c1"), "Bought."], computer)
    runner = await start(agent, session_service)
    paused = await send(runner, "buy the thing")
    assert computer.actions == [("initialize",)]  # nothing clicked yet
    (request,) = [
        e
        for e in paused
        if any(c.name == REQUEST_CONFIRMATION_FUNCTION_CALL_NAME for c in e.get_function_calls())
    ]
    call = request.get_function_calls()[0]
    assert call.args is not None
    assert call.args["toolConfirmation"]["hint"] == "Buy it?"

    answer = types.Part(
        function_response=types.FunctionResponse(
            id=call.id, name=REQUEST_CONFIRMATION_FUNCTION_CALL_NAME, response={"confirmed": True}
        )
    )
    resumed = await send(runner, types.Content(role="user", parts=[answer]))
    assert computer.actions[1:] == [("click_at", 128, 80)]
    assert texts(resumed) == ["Bought."]
    (seen,) = responses_of(model.requests[1])
    assert seen.response == {"url": HOME, "safety_acknowledgement": "true"}
    assert seen.parts  # the screenshot after the click


async def test_a_rejected_safety_decision_does_not_act() -> None:
    computer = MemoryBrowser()
    risky = {"x": 1, "y": 1, "safety_decision": {"decision": "require_confirmation"}}
    agent, _ = browser_agent([function_call("click_at", risky, id="c1"), "OK."], computer)
    runner = await start(agent, InMemorySessionService())
    paused = await send(runner, "click")
    call = next(
        c
        for e in paused
        for c in e.get_function_calls()
        if c.name == REQUEST_CONFIRMATION_FUNCTION_CALL_NAME
    )
    answer = types.Part(
        function_response=types.FunctionResponse(
            id=call.id, name=REQUEST_CONFIRMATION_FUNCTION_CALL_NAME, response={"confirmed": False}
        )
    )
    await send(runner, types.Content(role="user", parts=[answer]))
    assert computer.actions == [("initialize",)]


async def test_parallel_actions_run_one_at_a_time() -> None:
    computer = MemoryBrowser()
    agent, _ = browser_agent(
        [
            [
                function_call("click_at", {"x": 0, "y": 0}, id="c1"),
                function_call("hover_at", {"x": 0, "y": 0}, id="c2"),
                function_call("go_back", id="c3"),
            ],
            "Done.",
        ],
        computer,
    )
    runner = await start(agent, InMemorySessionService())
    await send(runner, "go")
    assert sorted(a[0] for a in computer.actions[1:]) == ["click_at", "go_back", "hover_at"]
    assert set(computer.prepared) == {"c1", "c2", "c3"}


async def test_the_toolset_lists_the_actions_once_and_closes_the_computer() -> None:
    computer = MemoryBrowser()
    toolset = ComputerUseToolset(computer=computer)
    tools = await toolset.get_tools()
    assert await toolset.get_tools() is tools
    assert computer.actions == [("initialize",)]
    assert not {t.name for t in tools} & {"screen_size", "environment", "close", "prepare"}
    await toolset.close()
    await toolset.close()
    assert computer.actions == [("initialize",), ("close",)]
    await toolset.get_tools()  # used again: initialized again
    assert computer.actions[-1] == ("initialize",)


def test_coordinates_are_scaled_and_clamped() -> None:
    async def act(x: int, y: int) -> None:
        """An action."""

    tool = ComputerUseTool(func=act, screen_size=(1920, 1080), virtual_screen_size=(100, 100))
    assert (tool._normalize_x(50), tool._normalize_y(50)) == (960, 540)
    assert (tool._normalize_x(-5), tool._normalize_y(250)) == (0, 1079)
    with pytest.raises(ValueError, match="coordinate"):
        tool._normalize_x("left")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="screen_size"):
        ComputerUseTool(func=act, screen_size=[1, 1])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="virtual_screen_size"):
        ComputerUseTool(func=act, screen_size=(1, 1), virtual_screen_size=(0, 10))


async def test_the_gemini_request_declares_computer_use(monkeypatch: pytest.MonkeyPatch) -> None:
    computer = MemoryBrowser()
    async with serving(monkeypatch) as fake:
        call = {"functionCall": {"id": "g1", "name": "click_at", "args": {"x": 500, "y": 500}}}
        fake.replies += [(200, parts_body([call])), (200, text_body("Clicked."))]
        model = Gemini(model="gemini-2.5-computer-use-preview-10-2025", base_url=fake.base_url)
        fake.clients.append(model)
        agent = LlmAgent(
            name="browser",
            model=model,
            instruction="Use the browser.",
            tools=[ComputerUseToolset(computer=computer, excluded_predefined_functions=["search"])],
        )
        runner = await start(agent, InMemorySessionService())
        events = await send(runner, "click the middle")
        await runner.close()
    assert texts(events) == ["Clicked."]
    assert computer.actions[1] == ("click_at", 640, 400)
    (_, first), (_, second) = fake.requests
    # google-genai sends the inner fields in their proto names (the API takes both spellings)
    assert first["tools"] == [
        {
            "computerUse": {
                "environment": "ENVIRONMENT_BROWSER",
                "excluded_predefined_functions": ["search"],
            }
        }
    ]
    assert first["systemInstruction"]["parts"][0]["text"].startswith("Use the browser.")
    answer = second["contents"][-1]["parts"][0]["functionResponse"]
    assert answer["name"] == "click_at"
    assert answer["response"] == {"url": HOME}
    (image,) = answer["parts"]
    assert image["inline_data"]["mime_type"] == "image/png"  # proto names here too
    assert base64.b64decode(image["inline_data"]["data"]) == computer.shots[0]
