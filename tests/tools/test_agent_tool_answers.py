"""What an AgentTool answers the calling model, and how it is declared (google-adk's rules)."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent, SequentialAgent
from adk_runtime.core.tool_context import ToolContext
from adk_runtime.models.llm_response import LlmResponse
from adk_runtime.sessions import InMemorySessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import AgentTool, LongRunningFunctionTool
from tests.llm.helpers import send, start, texts


async def _answer(inner: LlmAgent | SequentialAgent, args: dict[str, Any] | None = None) -> Any:
    """What the calling model is told after calling ``inner`` as a tool."""
    outer_model = ScriptedModel(
        replies=[function_call(inner.name, args or {"request": "go"}), "ok"]
    )
    outer = LlmAgent(name="outer", model=outer_model, tools=[AgentTool(inner)])
    runner = await start(outer, InMemorySessionService())
    await send(runner, "hi")
    last = outer_model.requests[-1].contents[-1]
    assert last.parts is not None
    response = last.parts[0].function_response
    assert response is not None
    return response.response


def _model_says(*parts: types.Part) -> ScriptedModel:
    return ScriptedModel(replies=[types.Content(role="model", parts=list(parts))])


async def test_code_and_its_output_are_answered_and_thoughts_are_not() -> None:
    inner = LlmAgent(
        name="coder",
        model=_model_says(
            types.Part(text="thinking hard", thought=True),
            types.Part(
                executable_code=types.ExecutableCode(language=types.Language.PYTHON, code="2**10")
            ),
            types.Part(
                code_execution_result=types.CodeExecutionResult(
                    outcome=types.Outcome.OUTCOME_OK, output="1024\n"
                )
            ),
            types.Part(text="That is 1024."),
        ),
    )
    assert await _answer(inner) == {"result": "2**10\n1024\nThat is 1024."}


async def test_an_inner_error_is_answered_when_there_is_no_text() -> None:
    failing = ScriptedModel(
        replies=[LlmResponse(error_code="UNAVAILABLE", error_message="backend said 503")]
    )
    assert await _answer(LlmAgent(name="flaky", model=failing)) == {"result": "backend said 503"}


async def test_an_inner_agent_waiting_on_a_long_running_call_is_an_error() -> None:
    def approve(amount: int) -> None:
        """Ask a human to approve."""

    inner = LlmAgent(
        name="approver",
        model=ScriptedModel(replies=[function_call("approve", {"amount": 3}, id="c9")]),
        tools=[LongRunningFunctionTool(approve)],
    )
    answer = await _answer(inner)
    assert "c9" in answer["result"]
    assert "cannot resume" in answer["result"]


class Query(pydantic.BaseModel):
    topic: str


class Found(pydantic.BaseModel):
    title: str


async def test_a_workflow_is_declared_by_its_first_sub_agents_input_and_answers_by_its_last() -> (
    None
):
    first_model = ScriptedModel(replies=["notes"])
    pipeline = SequentialAgent(
        name="pipeline",
        sub_agents=[
            LlmAgent(name="reader", model=first_model, input_schema=Query),
            LlmAgent(
                name="writer", model=ScriptedModel(replies=['{"title": "T"}']), output_schema=Found
            ),
        ],
    )
    declaration = AgentTool(pipeline)._get_declaration()
    assert declaration is not None
    assert declaration.parameters_json_schema == Query.model_json_schema()
    assert await _answer(pipeline, {"topic": "owls"}) == {"title": "T"}
    first_message = first_model.requests[0].contents[0].parts
    assert first_message is not None
    assert first_message[0].text == '{"topic":"owls"}'


@pytest.mark.parametrize(
    ("variable", "value", "expected"),
    [
        ("GOOGLE_GENAI_USE_ENTERPRISE", "1", {"type": "string"}),
        ("GOOGLE_GENAI_USE_VERTEXAI", "TRUE", {"type": "string"}),
        ("GOOGLE_GENAI_USE_ENTERPRISE", "0", None),
    ],
)
def test_vertex_ai_declares_the_answers_type(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, expected: dict[str, str] | None
) -> None:
    monkeypatch.delenv("GOOGLE_GENAI_USE_ENTERPRISE", raising=False)
    monkeypatch.delenv("GOOGLE_GENAI_USE_VERTEXAI", raising=False)
    monkeypatch.setenv(variable, value)
    plain = AgentTool(LlmAgent(name="plain", model=ScriptedModel()))._get_declaration()
    assert plain is not None
    assert plain.response_json_schema == expected
    structured = AgentTool(
        LlmAgent(name="structured", model=ScriptedModel(), output_schema=Found)
    )._get_declaration()
    assert structured is not None
    assert structured.response_json_schema == (None if expected is None else {"type": "object"})


async def test_skip_summarization_shows_the_answer_as_text_too() -> None:
    inner = LlmAgent(name="writer", model=ScriptedModel(replies=["the report"]))
    outer_model = ScriptedModel(replies=[function_call("writer", {"request": "go"})])
    outer = LlmAgent(
        name="outer", model=outer_model, tools=[AgentTool(inner, skip_summarization=True)]
    )
    runner = await start(outer, InMemorySessionService())
    events = await send(runner, "hi")
    last = events[-1]
    assert last.is_final_response()
    assert last.get_function_responses()[0].response == {"result": "the report"}
    assert texts([last]) == ["the report"]
    assert len(outer_model.requests) == 1  # no summary asked of the model


async def test_other_tools_skipping_summarization_show_no_text() -> None:
    def ack(tool_context: ToolContext) -> str:
        """Acknowledge quietly."""
        tool_context.actions.skip_summarization = True
        return "internal ack"

    model = ScriptedModel(replies=[function_call("ack")])
    runner = await start(LlmAgent(name="a", model=model, tools=[ack]), InMemorySessionService())
    events = await send(runner, "hi")
    assert texts(events) == []


async def test_the_forwarding_artifact_service_without_a_store_is_a_value_error() -> None:
    """Every call of an agent tool's artifact service needs the caller's store (ValueError)."""
    from adk_runtime.errors import ServiceNotConfiguredError
    from adk_runtime.tools._forwarding_artifact_service import ForwardingArtifactService

    refused: list[str] = []

    async def inspect_files(tool_context: ToolContext) -> str:
        """Look at the caller's files."""
        forwarding = ForwardingArtifactService(tool_context)
        calls = {
            "delete_artifact": forwarding.delete_artifact,
            "list_versions": forwarding.list_versions,
            "list_artifact_versions": forwarding.list_artifact_versions,
            "get_artifact_version": forwarding.get_artifact_version,
        }
        for name, call in calls.items():
            with pytest.raises(ValueError, match="Artifact service is not initialized") as info:
                await call(app_name="a", user_id="u", filename="f.txt")
            assert isinstance(info.value, ServiceNotConfiguredError)
            refused.append(name)
        return "done"

    model = ScriptedModel(replies=[function_call("inspect_files", {}), "ok"])
    agent = LlmAgent(name="files", model=model, tools=[inspect_files])
    runner = await start(agent, InMemorySessionService(), artifact_service=None)
    await send(runner, "look")
    assert refused == [
        "delete_artifact",
        "list_versions",
        "list_artifact_versions",
        "get_artifact_version",
    ]


async def test_the_agents_tools_use_the_calling_runners_credential_service() -> None:
    from adk_runtime.auth.credential_service import InMemoryCredentialService
    from adk_runtime.runners import Runner
    from tests.auth.helpers import api_key_config as config

    async def sign_in(tool_context: ToolContext) -> str:
        """Keep the user's CRM key."""
        await tool_context.save_credential(config("k-123"))
        return "saved"

    async def crm_key(tool_context: ToolContext) -> str:
        """Read the user's CRM key."""
        saved = await tool_context.load_credential(config())
        return saved.api_key or "" if saved is not None else "none"

    inner = LlmAgent(
        name="crm", model=ScriptedModel(replies=[function_call("crm_key", {}), "the key is set"]),
        tools=[crm_key],
    )  # fmt: skip
    outer_model = ScriptedModel(
        replies=[function_call("sign_in", {}), function_call("crm", {"request": "key?"}), "ok"]
    )
    outer = LlmAgent(name="outer", model=outer_model, tools=[sign_in, AgentTool(inner)])
    sessions = InMemorySessionService()
    runner = Runner(
        app_name="app", agent=outer, session_service=sessions,
        credential_service=InMemoryCredentialService(),
    )  # fmt: skip
    await sessions.create_session(app_name="app", user_id="u1", session_id="s1")
    async for _ in runner.run_async(
        user_id="u1",
        session_id="s1",
        new_message=types.Content(role="user", parts=[types.Part(text="hi")]),
    ):
        pass
    inner_model = inner.model
    assert isinstance(inner_model, ScriptedModel)
    answer = inner_model.requests[-1].contents[-1].parts
    assert answer is not None
    assert answer[0].function_response is not None
    assert answer[0].function_response.response == {"result": "k-123"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"request": "find shoes"}, "find shoes"),
        ({"product": "shoes", "brand": "Nike"}, '{"brand": "Nike", "product": "shoes"}'),
    ],
)
async def test_arguments_sent_instead_of_request_reach_the_agent_as_json(
    args: dict[str, Any], message: str
) -> None:
    inner_model = ScriptedModel(replies=["found"])
    assert await _answer(LlmAgent(name="shop", model=inner_model), args) == {"result": "found"}
    asked = inner_model.requests[0].contents[-1].parts
    assert asked is not None
    assert asked[0].text == message
