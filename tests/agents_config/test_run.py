"""Agents built from YAML run through a real Runner (the model is a ScriptedModel by reference)."""

from __future__ import annotations

from pathlib import Path

import pytest

from adk_runtime.agents import config_agent_utils
from adk_runtime.sessions import InMemorySessionService
from adk_runtime.testing import ScriptedModel, function_call
from tests.agents_config import helpers
from tests.agents_config.helpers import HERE, write
from tests.llm.helpers import send, start, stored, texts


async def test_llm_agent_from_yaml_calls_its_tool_and_callbacks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = ScriptedModel(replies=[function_call("lookup_order", {"order_id": "A7"}), "Shipped."])
    monkeypatch.setattr(helpers, "MODEL", model)
    path = write(
        tmp_path,
        "root_agent.yaml",
        f"""
        name: support
        instruction: "Help {{user:name}} with orders."
        model_code:
          name: {HERE}.MODEL
        output_key: last_answer
        tools:
          - name: {HERE}.lookup_order
        before_agent_callbacks:
          - name: {HERE}.before_agent
        before_model_callbacks:
          - name: {HERE}.before_model
        after_tool_callbacks:
          - name: {HERE}.after_tool
        """,
    )
    agent = config_agent_utils.from_config(str(path))
    runner = await start(agent, InMemorySessionService(), state={"user:name": "Ada"})
    events = await send(runner, "Where is order A7?")

    assert texts(events) == ["Shipped."]
    assert model.requests[0].config.system_instruction == "Help Ada with orders."
    assert [d.name for d in model.requests[0].config.tools[0].function_declarations] == [
        "lookup_order"
    ]
    state = (await stored(runner)).state
    assert state["looked_up"] == "A7"
    assert state["last_answer"] == "Shipped."
    assert state["before_agent"] is True
    assert state["before_model"] is True
    assert state["after_tool"] == "lookup_order"


async def test_sequential_agent_from_yaml_runs_its_sub_agent_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = ScriptedModel(replies=["draft written", "draft reviewed"])
    monkeypatch.setattr(helpers, "MODEL", model)
    for name, instruction in (("writer", "Write."), ("reviewer", "Review: {draft}")):
        write(
            tmp_path,
            f"steps/{name}.yaml",
            f"""
            name: {name}
            instruction: "{instruction}"
            model_code:
              name: {HERE}.MODEL
            output_key: {"draft" if name == "writer" else "review"}
            """,
        )
    path = write(
        tmp_path,
        "pipeline.yaml",
        """
        agent_class: SequentialAgent
        name: pipeline
        sub_agents:
          - config_path: steps/writer.yaml
          - config_path: steps/reviewer.yaml
        """,
    )
    agent = config_agent_utils.from_config(str(path))
    runner = await start(agent, InMemorySessionService())
    events = await send(runner, "go")

    assert texts(events) == ["draft written", "draft reviewed"]
    assert model.requests[1].config.system_instruction == "Review: draft written"
    state = (await stored(runner)).state
    assert (state["draft"], state["review"]) == ("draft written", "draft reviewed")


async def test_loop_agent_from_yaml_stops_on_exit_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = ScriptedModel(replies=["try 1", function_call("exit_loop"), "never"])
    monkeypatch.setattr(helpers, "MODEL", model)
    write(
        tmp_path,
        "worker.yaml",
        f"""
        name: worker
        instruction: Work until done, then call exit_loop.
        model_code:
          name: {HERE}.MODEL
        tools:
          - name: exit_loop
        """,
    )
    path = write(
        tmp_path,
        "loop.yaml",
        "agent_class: LoopAgent\nname: loop\nmax_iterations: 5\nsub_agents:\n"
        "  - config_path: worker.yaml\n",
    )
    runner = await start(config_agent_utils.from_config(str(path)), InMemorySessionService())
    events = await send(runner, "go")

    assert texts(events) == ["try 1"]
    assert len(model.requests) == 2  # the second round escalated; no third call
    assert any(event.actions.escalate for event in events)
