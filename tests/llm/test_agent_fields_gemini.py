"""The new LlmAgent fields on the real google-genai client against the fake Gemini server."""

from __future__ import annotations

import pydantic
import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent, RunConfig
from adk_runtime.code_executors import BuiltInCodeExecutor
from adk_runtime.planners import BuiltInPlanner
from adk_runtime.runners import InMemoryRunner
from adk_runtime.sessions import InMemorySessionService
from tests.llm.fake_gemini import FakeGemini, parts_body, text_body
from tests.llm.helpers import send, start, stored, texts
from tests.llm.test_gemini import fake, gemini

__all__ = ["fake"]  # the fixture


class Forecast(pydantic.BaseModel):
    city: str
    celsius: int


async def test_output_schema_is_sent_as_the_response_schema(fake: FakeGemini) -> None:
    fake.replies.append((200, text_body('{"city": "Oslo", "celsius": 4}')))
    agent = LlmAgent(name="a", model=gemini(fake), output_schema=Forecast, output_key="forecast")
    runner = await start(agent, InMemorySessionService())
    await send(runner, "weather?")
    config = fake.requests[0][1]["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    assert schema is not None
    assert set(schema["properties"]) == {"city", "celsius"}
    assert (await stored(runner)).state["forecast"] == {"city": "Oslo", "celsius": 4}


async def test_static_and_global_instructions_reach_gemini(fake: FakeGemini) -> None:
    fake.replies.append((200, text_body("ok")))
    agent = LlmAgent(
        name="a",
        model=gemini(fake),
        global_instruction="Be kind.",
        static_instruction="You help with weather.",
        instruction="User: {user:name}.",
    )
    runner = await start(agent, InMemorySessionService(), state={"user:name": "Ada"})
    await send(runner, "hi")
    body = fake.requests[0][1]
    system = body["systemInstruction"]["parts"]
    assert "".join(p["text"] for p in system) == "Be kind.\n\nYou help with weather."
    first, last = body["contents"]
    assert first["role"] == "user"
    assert first["parts"][0]["text"].endswith("User: Ada.")
    assert last["parts"][0]["text"] == "hi"


async def test_planner_and_code_executor_configure_the_request(fake: FakeGemini) -> None:
    reply = [
        {"text": "Computing.", "thought": True},
        {"executableCode": {"language": "PYTHON", "code": "print(2 + 2)"}},
        {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "4\n"}},
        {"text": "It is 4."},
    ]
    fake.replies.append((200, parts_body(reply)))
    agent = LlmAgent(
        name="a",
        model=gemini(fake),
        planner=BuiltInPlanner(thinking_config=types.ThinkingConfig(thinking_budget=128)),
        code_executor=BuiltInCodeExecutor(),
    )
    runner = await start(agent, InMemorySessionService())
    events = await send(runner, "2+2?")
    body = fake.requests[0][1]
    thinking = body["generationConfig"]["thinkingConfig"]
    assert thinking in ({"thinkingBudget": 128}, {"thinking_budget": 128})
    assert {"codeExecution": {}} in body["tools"]
    assert len(events) == 1  # the model ran the code: one final event, no second call
    assert events[0].content is not None
    parts = events[0].content.parts or []
    assert parts[1].executable_code is not None
    assert parts[2].code_execution_result is not None


async def test_on_model_error_callback_recovers_from_an_unreachable_gemini(
    fake: FakeGemini,
) -> None:
    from adk_runtime.models import Gemini, LlmResponse

    seen: list[str] = []

    def recover(callback_context: object, llm_request: object, error: Exception) -> LlmResponse:
        seen.append(type(error).__name__)
        return LlmResponse(content=types.Content(role="model", parts=[types.Part(text="later")]))

    port = fake.base_url.rsplit(":", 1)[1]
    await fake.stop()  # nothing listens on the port any more
    model = Gemini(
        model="gemini-2.5-flash",
        base_url=f"http://127.0.0.1:{port}",
        retry_options=types.HttpRetryOptions(attempts=1),
    )
    fake.clients.append(model)
    agent = LlmAgent(name="a", model=model, on_model_error_callback=recover)
    runner = await start(agent, InMemorySessionService())
    events = await send(runner, "hi")
    assert texts(events) == ["later"]
    assert len(seen) == 1


async def test_run_debug_on_gemini_prints_and_returns_the_events(
    fake: FakeGemini, capsys: object
) -> None:
    fake.replies += [(200, text_body("Hello Ada.")), (200, text_body("Still here."))]
    runner = InMemoryRunner(LlmAgent(name="helper", model=gemini(fake)), app_name="debug")
    async with runner:
        events = await runner.run_debug(["hi", "again"])
    assert texts(events) == ["Hello Ada.", "Still here."]
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "helper > Hello Ada." in out
    assert "helper > Still here." in out
    # one session: the second request carries the first turn
    assert len(fake.requests[1][1]["contents"]) == 3


async def test_labels_go_to_vertex_ai_and_are_left_out_for_the_gemini_api(
    fake: FakeGemini, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.replies.extend([(200, text_body("one")), (200, text_body("two"))])
    run_config = RunConfig(labels={"team": "search"})
    runner = await start(LlmAgent(name="a", model=gemini(fake)), InMemorySessionService())
    assert texts(await send(runner, "hi", run_config=run_config)) == ["one"]

    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")  # express mode: the API key
    runner = await start(LlmAgent(name="b", model=gemini(fake)), InMemorySessionService())
    assert texts(await send(runner, "hi", run_config=run_config)) == ["two"]

    (gemini_path, gemini_body), (vertex_path, vertex_body) = fake.requests
    assert "/publishers/" not in gemini_path
    assert "labels" not in gemini_body
    assert "/publishers/google/models/" in vertex_path
    assert vertex_body["labels"] == {"team": "search", "adk_agent_name": "b"}
