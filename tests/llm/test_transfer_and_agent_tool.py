"""Agent transfer (and the next turn staying with the new agent) and AgentTool."""

from __future__ import annotations

from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import AgentTool, ToolContext
from tests.llm.helpers import send, start, stored, texts


def _declared(model: ScriptedModel, index: int = 0) -> dict[str, list[str] | None]:
    tools = model.requests[index].config.tools or []
    return {
        d.name or "": d.parameters_json_schema["properties"]["agent_name"].get("enum")  # type: ignore[index]
        for tool in tools
        for d in tool.function_declarations or []  # type: ignore[union-attr]
        if d.name == "transfer_to_agent"
    }


async def test_transfer_and_next_turn(session_service: BaseSessionService) -> None:
    root_model = ScriptedModel(
        replies=[function_call("transfer_to_agent", {"agent_name": "billing"})]
    )
    billing_model = ScriptedModel(replies=["billing here", "still billing"])
    billing = LlmAgent(name="billing", model=billing_model, description="Invoices.")
    root = LlmAgent(name="root", model=root_model, sub_agents=[billing])
    runner = await start(root, session_service)

    events = await send(runner, "my invoice")
    assert [e.author for e in events] == ["root", "root", "billing"]
    assert events[1].actions.transfer_to_agent == "billing"
    assert texts(events[-1:]) == ["billing here"]
    assert _declared(root_model) == {"transfer_to_agent": ["billing"]}
    # billing may go back to its parent (no peers here)
    assert _declared(billing_model) == {"transfer_to_agent": ["root"]}

    events = await send(runner, "and another")
    assert [e.author for e in events] == ["billing"]
    assert texts(events) == ["still billing"]
    assert len(root_model.requests) == 1
    assert (await stored(runner)).events[-1].author == "billing"


async def test_disallow_transfer_to_parent_returns_to_root(
    session_service: BaseSessionService,
) -> None:
    root_model = ScriptedModel(
        replies=[function_call("transfer_to_agent", {"agent_name": "helper"}), "root again"]
    )
    helper_model = ScriptedModel(replies=["helped"])
    helper = LlmAgent(
        name="helper",
        model=helper_model,
        disallow_transfer_to_parent=True,
        disallow_transfer_to_peers=True,
    )
    root = LlmAgent(name="root", model=root_model, sub_agents=[helper])
    runner = await start(root, session_service)
    await send(runner, "help")
    assert _declared(helper_model) == {}
    events = await send(runner, "next")
    assert [e.author for e in events] == ["root"]


async def test_transfer_to_unknown_agent_is_an_error_for_the_model(
    session_service: BaseSessionService,
) -> None:
    model = ScriptedModel(
        replies=[function_call("transfer_to_agent", {"agent_name": "ghost"}), "sorry"]
    )
    root = LlmAgent(name="root", model=model, sub_agents=[LlmAgent(name="real", model=model)])
    runner = await start(root, session_service)
    events = await send(runner, "go")
    assert "Cannot transfer to 'ghost'" in events[1].get_function_responses()[0].response["error"]  # type: ignore[index]
    assert events[1].actions.transfer_to_agent is None
    assert texts(events[-1:]) == ["sorry"]


async def test_agent_tool_state_comes_back(session_service: BaseSessionService) -> None:
    async def stamp(tool_context: ToolContext) -> str:
        """Stamp the document."""
        tool_context.state["stamped_by"] = "clerk"
        await tool_context.save_artifact("stamp.txt", types.Part(text="STAMP"))
        return "stamped " + str(tool_context.state.get("doc"))

    clerk_model = ScriptedModel(replies=[function_call("stamp"), "stamped it"])
    clerk = LlmAgent(name="clerk", model=clerk_model, tools=[stamp], description="Stamps docs.")
    boss_model = ScriptedModel(replies=[function_call("clerk", {"request": "stamp it"}), "done"])
    boss = LlmAgent(name="boss", model=boss_model, tools=[AgentTool(clerk)])
    runner = await start(boss, session_service, state={"doc": "memo"})
    events = await send(runner, "please stamp")
    response_event = events[1]
    assert response_event.get_function_responses()[0].response == {"result": "stamped it"}
    assert response_event.actions.state_delta == {"stamped_by": "clerk"}
    assert response_event.actions.artifact_delta == {"stamp.txt": 0}
    assert clerk_model.requests[0].contents[0].parts[0].text == "stamp it"  # type: ignore[index]
    assert clerk_model.requests[1].contents[-1].parts[0].function_response.response == {  # type: ignore[index,union-attr]
        "result": "stamped memo"
    }
    session = await stored(runner)
    assert session.state["stamped_by"] == "clerk"
    part = await runner.artifact_service.load_artifact(  # type: ignore[union-attr]
        app_name=session.app_name,
        user_id=session.user_id,
        session_id=session.id,
        filename="stamp.txt",
    )
    assert part is not None
    assert part.text == "STAMP"
    assert {e.author for e in session.events} == {"user", "boss"}


async def test_a_transfer_tool_of_its_own_asks_for_and_stores_a_reason(
    session_service: BaseSessionService,
) -> None:
    from adk_runtime.tools import TransferToAgentTool

    call = function_call(
        "transfer_to_agent", {"agent_name": "billing", "transfer_reason": "an invoice question"}
    )
    root_model = ScriptedModel(replies=[call])
    billing = LlmAgent(name="billing", model=ScriptedModel(replies=["billing here"]))
    tool = TransferToAgentTool(["billing"], include_transfer_reason=True)
    root = LlmAgent(name="root", model=root_model, sub_agents=[billing], tools=[tool])
    runner = await start(root, session_service)

    events = await send(runner, "my invoice")
    assert [e.author for e in events] == ["root", "root", "billing"]
    declared = [
        d
        for t in root_model.requests[0].config.tools or []
        for d in t.function_declarations or []  # type: ignore[union-attr]
    ]
    assert [d.name for d in declared] == ["transfer_to_agent"]  # the agent adds no second one
    schema = declared[0].parameters_json_schema
    assert schema["properties"]["agent_name"]["enum"] == ["billing"]  # type: ignore[index]
    assert "transfer_reason" in schema["properties"]  # type: ignore[index]
    reloaded = (await stored(runner)).events[2]
    assert reloaded.actions.transfer_to_agent == "billing"
    assert reloaded.actions.transfer_reason == "an invoice question"


async def test_the_transfer_tool_refuses_a_name_it_was_not_given() -> None:
    from adk_runtime.tools import TransferToAgentTool

    tool = TransferToAgentTool(agent_names=["a", "b"])
    declaration = tool._get_declaration()
    assert declaration is not None
    assert declaration.parameters_json_schema is not None
    assert "transfer_reason" not in declaration.parameters_json_schema["properties"]
    assert tool.func.__name__ == "transfer_to_agent"


async def test_an_own_function_named_transfer_to_agent_is_offered_instead(
    session_service: BaseSessionService,
) -> None:
    calls: list[str] = []

    def transfer_to_agent(agent_name: str, tool_context: ToolContext) -> None:
        """The application's own transfer (it logs, then hands over)."""
        calls.append(agent_name)
        tool_context.actions.transfer_to_agent = agent_name

    root_model = ScriptedModel(replies=[function_call("transfer_to_agent", {"agent_name": "b"})])
    helper = LlmAgent(name="b", model=ScriptedModel(replies=["b here"]))
    root = LlmAgent(name="root", model=root_model, sub_agents=[helper], tools=[transfer_to_agent])
    runner = await start(root, session_service)
    events = await send(runner, "go")
    assert calls == ["b"]
    assert [e.author for e in events] == ["root", "root", "b"]
    declared = [
        d.name
        for t in root_model.requests[0].config.tools or []
        for d in t.function_declarations or []  # type: ignore[union-attr]
    ]
    assert declared == ["transfer_to_agent"]
