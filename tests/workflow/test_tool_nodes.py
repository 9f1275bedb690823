"""A tool as a workflow node: its input becomes its arguments, plugins see the call, and a
tool that asks the user (a confirmation, a credential) pauses the workflow until the answer,
on every backend and any replica."""

from __future__ import annotations

from typing import Any

import pytest
from google.genai import types
from pydantic import BaseModel

from adk_runtime.agents.context import Context
from adk_runtime.apps import App
from adk_runtime.errors import InputValidationError
from adk_runtime.events import Event, RequestInput
from adk_runtime.plugins import BasePlugin
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService
from adk_runtime.tools import BaseTool, FunctionTool, ToolContext
from adk_runtime.workflow import START, Workflow, WorkflowDataError, node
from tests.workflow.helpers import USER, Run, answer, message, outputs
from tests.workflow.test_node_credentials import _calls, _key_answer, _key_config, _response


def _deploy(env: str) -> dict[str, str]:
    return {"deployed": env}


def _questions(events: list[Event]) -> list[types.FunctionCall]:
    return _calls(events, "adk_request_input")


class Transfer(BaseModel):
    account: str
    amount: int


def _transfer(account: str, amount: int) -> dict[str, Any]:
    return {"sent": amount, "to": account}


@pytest.mark.parametrize(
    ("node_input", "expected"),
    [
        ({"account": "A", "amount": 5}, {"sent": 5, "to": "A"}),
        (Transfer(account="B", amount=6), {"sent": 6, "to": "B"}),
        ('{"account": "C", "amount": 7}', {"sent": 7, "to": "C"}),
        (  # a message a node passed on: its text is JSON
            types.Content(role="user", parts=[types.Part(text='{"account": "D", "amount": 8}')]),
            {"sent": 8, "to": "D"},
        ),
    ],
)
async def test_a_tool_nodes_input_becomes_its_arguments(
    session_service: BaseSessionService, node_input: Any, expected: dict[str, Any]
) -> None:
    def feed(node_input: Any) -> Any:
        return fed

    fed = node_input.model_dump() if isinstance(node_input, Transfer) else node_input
    workflow = Workflow(name="bank", edges=[(START, feed, FunctionTool(_transfer))])
    run = await Run(session_service, workflow).start()
    events = await run.send(message("go"))
    assert outputs(events)["bank@1/_transfer@1"] == expected


async def test_a_one_parameter_tool_takes_the_message_and_missing_ones_come_from_state(
    session_service: BaseSessionService,
) -> None:
    def greet(name: str) -> str:
        return f"hello {name}"

    def send(account: str, amount: int) -> dict[str, Any]:
        return {"account": account, "amount": amount}

    def setup(ctx: Context) -> dict[str, int]:
        ctx.state["account"] = "from-state"
        return {"amount": 3}

    greeting = Workflow(name="hi", edges=[(START, FunctionTool(greet))])
    run = await Run(session_service, greeting).start()
    assert outputs(await run.send(message("  Ada ")))["hi@1/greet@1"] == "hello Ada"

    sending = Workflow(name="pay", edges=[(START, setup, FunctionTool(send))])
    run = await Run(session_service, sending).start()
    events = await run.send(message("go"))
    assert outputs(events)["pay@1/send@1"] == {"account": "from-state", "amount": 3}

    refused = Workflow(name="bad", edges=[(START, FunctionTool(_transfer))])
    run = await Run(session_service, refused).start()
    with pytest.raises(WorkflowDataError, match="dict of arguments"):
        await run.send(message("not json"))


@pytest.mark.parametrize("confirmed", [True, False])
async def test_a_tool_node_that_needs_confirmation_asks_and_runs_on_another_replica(
    session_service: BaseSessionService, confirmed: bool
) -> None:
    def workflow() -> Workflow:
        return Workflow(
            name="release", edges=[(START, node(FunctionTool(_deploy, require_confirmation=True)))]
        )

    run = await Run(session_service, workflow()).start()
    first = await run.send(message("prod"))
    [question] = _questions(first)
    assert question.id == "wf_tool_confirmation:release@1/_deploy@1"
    assert (question.args or {})["payload"] == {"tool_name": "_deploy", "args": {"env": "prod"}}
    assert outputs(first) == {}
    stored = len((await run.session()).events)
    with pytest.raises(InputValidationError):  # not a ToolConfirmation: refused, not stored
        await run.send(
            answer(question.id, {"confirmed": [1]}), invocation_id=first[0].invocation_id
        )
    assert len((await run.session()).events) == stored

    replica = run.replica(workflow())
    events = await replica.send(
        answer(question.id, {"confirmed": confirmed}), invocation_id=first[0].invocation_id
    )

    expected = {"deployed": "prod"} if confirmed else {"error": "This tool call is rejected."}
    assert outputs(events)["release@1/_deploy@1"] == expected


async def test_a_tool_that_asks_for_confirmation_itself_gets_the_answer(
    session_service: BaseSessionService,
) -> None:
    seen: list[Any] = []

    def wire(amount: int, tool_context: ToolContext) -> dict[str, Any]:
        confirmation = tool_context.tool_confirmation
        if confirmation is None:
            tool_context.request_confirmation(hint=f"Wire {amount}?", payload={"limit": 0})
            return {"status": "waiting"}
        seen.append(confirmation.payload)
        return {"wired": amount, "limit": (confirmation.payload or {}).get("limit")}

    workflow = Workflow(name="wires", edges=[(START, FunctionTool(wire))])
    run = await Run(session_service, workflow).start()
    first = await run.send(message("250"))
    [question] = _questions(first)
    assert (question.args or {})["message"] == "Wire 250?"
    assert (question.args or {})["payload"]["payload"] == {"limit": 0}

    events = await run.send(
        answer(question.id, {"confirmed": True, "payload": {"limit": 500}}),
        invocation_id=first[0].invocation_id,
    )

    assert outputs(events)["wires@1/wire@1"] == {"wired": 250, "limit": 500}
    assert seen == [{"limit": 500}]


async def test_a_tool_node_gets_its_credential_on_another_replica(
    session_service: BaseSessionService,
) -> None:
    config = _key_config("ledger")
    keys: list[str | None] = []

    def balance(account: str, tool_context: ToolContext) -> dict[str, Any]:
        credential = tool_context.get_auth_response(config)
        if credential is None:
            tool_context.request_credential(config)
            return {"pending": True}
        keys.append(credential.api_key)
        return {"account": account, "balance": 42}

    def workflow() -> Workflow:
        return Workflow(name="bank", edges=[(START, FunctionTool(balance))])

    run = await Run(session_service, workflow()).start()
    first = await run.send(message("A-1"))
    [request] = _calls(first, "adk_request_credential")
    assert request.id == "wf_auth:bank@1/balance@1"
    assert outputs(first) == {}  # the pending result is not the node's output
    stored = len((await run.session()).events)
    with pytest.raises(InputValidationError, match="carries no credential"):
        await run.send(_response(request, {"no": "key"}), invocation_id=first[0].invocation_id)
    assert len((await run.session()).events) == stored

    replica = run.replica(workflow())
    events = await replica.send(
        _response(request, _key_answer(config, "ledger-key")), invocation_id=first[0].invocation_id
    )

    assert outputs(events)["bank@1/balance@1"] == {"account": "A-1", "balance": 42}
    assert keys == ["ledger-key"]


class _Audit(BasePlugin):
    def __init__(self) -> None:
        super().__init__(name="audit")
        self.calls: list[tuple[str, str, Any]] = []

    async def before_tool_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        self.calls.append(("before", tool.name, dict(tool_args)))
        if tool_args.get("env") == "blocked":
            return {"blocked": True}
        return None

    async def after_tool_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        result: dict[str, Any],
    ) -> dict[str, Any] | None:
        self.calls.append(("after", tool.name, result))
        return {**result, "audited": True}

    async def on_tool_error_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        error: Exception,
    ) -> dict[str, Any] | None:
        self.calls.append(("error", tool.name, type(error).__name__))
        return {"failed": str(error)}


async def test_plugins_see_a_tool_nodes_call(session_service: BaseSessionService) -> None:
    def flaky(env: str) -> dict[str, str]:
        if env == "broken":
            raise RuntimeError("down")
        return {"env": env}

    audit = _Audit()
    workflow = Workflow(name="ops", edges=[(START, FunctionTool(flaky))])
    app = App(name="ops", root_agent=workflow, plugins=[audit])
    runner = Runner(app=app, session_service=session_service)
    results = []
    for env in ("dev", "blocked", "broken"):
        sid = f"s-{env}"
        await session_service.create_session(app_name="ops", user_id=USER, session_id=sid)
        events = [
            e
            async for e in runner.run_async(user_id=USER, session_id=sid, new_message=message(env))
        ]
        results.append(outputs(events)["ops@1/flaky@1"])

    assert results == [
        {"env": "dev", "audited": True},
        {"blocked": True, "audited": True},
        {"failed": "down", "audited": True},
    ]
    assert [kind for kind, _, _ in audit.calls] == [
        "before", "after", "before", "after", "before", "error", "after"
    ]  # fmt: skip


async def test_a_generator_tool_node_reports_progress_asks_and_outputs(
    session_service: BaseSessionService,
) -> None:
    """Its Events are the node's, a RequestInput its question (the tool runs again from the
    start with the answer), and its one other value the node's output."""
    runs: list[int] = []

    async def book(city: str, tool_context: ToolContext) -> Any:
        runs.append(1)
        yield Event(message=f"Looking up hotels in {city}...")
        nights = tool_context.resume_inputs.get("nights")
        if nights is None:
            yield RequestInput(interrupt_id="nights", message="How many nights?")
            return
        yield {"city": city, "nights": nights}

    def workflow() -> Workflow:
        return Workflow(name="trip", edges=[(START, FunctionTool(book))])

    run = await Run(session_service, workflow()).start()
    first = await run.send(message("Rome"))
    [question] = _questions(first)
    assert question.id == "nights"
    assert outputs(first) == {}
    progress = [e for e in first if e.content and e.content.parts and e.content.parts[0].text]
    assert [e.content.parts[0].text for e in progress if e.content and e.content.parts] == [
        "Looking up hotels in Rome..."
    ]

    replica = run.replica(workflow())
    events = await replica.send(answer("nights", 3), invocation_id=first[0].invocation_id)

    assert outputs(events)["trip@1/book@1"] == {"city": "Rome", "nights": 3}
    assert len(runs) == 2


async def test_a_generator_tool_node_with_two_outputs_fails(
    session_service: BaseSessionService,
) -> None:
    def twice(city: str) -> Any:
        yield {"a": city}
        yield {"b": city}

    run = await Run(
        session_service, Workflow(name="w", edges=[(START, FunctionTool(twice))])
    ).start()
    with pytest.raises(WorkflowDataError, match="second output"):
        await run.send(message("Oslo"))
