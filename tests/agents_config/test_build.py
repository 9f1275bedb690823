"""Agents built from YAML files: every key of the LLM agent, tools, callbacks, sub-agents."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
import yaml
from google.genai import types
from pydantic import ValidationError

from adk_runtime.agents import (
    LlmAgent,
    LoopAgent,
    ParallelAgent,
    SequentialAgent,
    config_agent_utils,
)
from adk_runtime.agents.agent_config import AgentConfig
from adk_runtime.agents.llm_agent_config import LlmAgentConfig
from adk_runtime.agents.loop_agent_config import LoopAgentConfig
from adk_runtime.core._tool_configs import ToolArgsConfig
from adk_runtime.core.base_agent_config import BaseAgentConfig
from adk_runtime.integrations.langchain import LangchainTool
from adk_runtime.testing import ScriptedModel
from adk_runtime.tools import AgentTool, exit_loop, google_search, load_memory, url_context
from adk_runtime.tools.agent_tool import AgentToolConfig
from adk_runtime.tools.example_tool import ExampleTool
from tests.agents_config import helpers
from tests.agents_config.helpers import HERE, write


def test_llm_agent_fields(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "root_agent.yaml",
        """
        name: assistant
        description: Answers questions.
        model: gemini-2.5-flash
        instruction: "Help {user:name}."
        static_instruction: You are careful.
        output_key: answer
        include_contents: none
        disallow_transfer_to_parent: true
        disallow_transfer_to_peers: true
        generate_content_config:
          temperature: 0.2
          max_output_tokens: 64
        """,
    )
    agent = config_agent_utils.from_config(str(path))
    assert isinstance(agent, LlmAgent)
    assert agent.name == "assistant"
    assert agent.description == "Answers questions."
    assert agent.model == "gemini-2.5-flash"
    assert agent.instruction == "Help {user:name}."
    assert agent.static_instruction == "You are careful."
    assert agent.output_key == "answer"
    assert agent.include_contents == "none"
    assert agent.disallow_transfer_to_parent is True
    assert agent.disallow_transfer_to_peers is True
    assert agent.generate_content_config == types.GenerateContentConfig(
        temperature=0.2, max_output_tokens=64
    )
    assert agent.sub_agents == []
    assert agent.tools == []


def test_an_unset_key_keeps_the_agent_default(tmp_path: Path) -> None:
    agent = config_agent_utils.from_config(
        str(write(tmp_path, "a.yaml", "name: a\ninstruction: hi\nmodel: null\n"))
    )
    assert isinstance(agent, LlmAgent)
    assert agent.model == ""  # inherited from the ancestor or the default
    assert agent.include_contents == "default"


def test_static_instruction_as_content(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "a.yaml",
        """
        name: a
        instruction: hi
        static_instruction:
          role: user
          parts:
            - text: Be brief.
        """,
    )
    agent = config_agent_utils.from_config(str(path))
    assert isinstance(agent, LlmAgent)
    assert agent.static_instruction == types.Content(
        role="user", parts=[types.Part(text="Be brief.")]
    )


def test_built_in_and_dotted_tools(tmp_path: Path) -> None:
    write(tmp_path, "expert.yaml", "name: expert\ninstruction: I know things.\n")
    path = write(
        tmp_path,
        "root.yaml",
        f"""
        name: root
        instruction: Use your tools.
        tools:
          - name: google_search
          - name: load_memory
          - name: exit_loop
          - name: google.adk.tools.url_context
          - name: {HERE}.lookup_order
          - name: {HERE}.REFUND_TOOL
          - name: {HERE}.GreetingTool
            args:
              greeting: hello
              times: 3
          - name: {HERE}.make_tool
            args:
              greeting: hi
          - name: {HERE}.SettingsTool
            args:
              settings:
                level: 7
          - name: AgentTool
            args:
              agent: expert.yaml
              skip_summarization: true
        """,
    )
    agent = config_agent_utils.from_config(str(path))
    assert isinstance(agent, LlmAgent)
    tools = agent.tools
    assert tools[:6] == [
        google_search,
        load_memory,
        exit_loop,
        url_context,
        helpers.lookup_order,
        helpers.REFUND_TOOL,
    ]
    assert isinstance(tools[6], helpers.GreetingTool)
    assert (tools[6].greeting, tools[6].times) == ("hello", 3)
    assert isinstance(tools[7], helpers.GreetingTool)
    assert (tools[7].greeting, tools[7].times) == ("hi", 1)
    assert isinstance(tools[8], helpers.SettingsTool)
    assert tools[8].settings == helpers.Settings(level=7)
    assert isinstance(tools[9], AgentTool)
    assert tools[9].skip_summarization is True
    assert isinstance(tools[9].agent, LlmAgent)
    assert tools[9].agent.name == "expert"
    assert len(tools) == 10


def test_agent_tool_by_code_reference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(helpers, "AGENT", LlmAgent(name="coded", instruction="x"))
    path = write(
        tmp_path,
        "root.yaml",
        f"""
        name: root
        instruction: x
        tools:
          - name: google.adk.tools.agent_tool.AgentTool
            args:
              agent:
                code: {HERE}.AGENT
        """,
    )
    agent = config_agent_utils.from_config(str(path))
    assert isinstance(agent, LlmAgent)
    tool = agent.tools[0]
    assert isinstance(tool, AgentTool)
    assert tool.agent is helpers.AGENT


def test_callbacks(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "root.yaml",
        f"""
        name: root
        instruction: x
        before_agent_callbacks:
          - name: {HERE}.before_agent
        after_agent_callbacks:
          - name: {HERE}.after_agent
          - name: {HERE}.before_agent
        before_model_callbacks:
          - name: {HERE}.before_model
        after_model_callbacks:
          - name: {HERE}.after_model
        before_tool_callbacks:
          - name: {HERE}.before_tool
        after_tool_callbacks:
          - name: {HERE}.after_tool
        """,
    )
    agent = config_agent_utils.from_config(str(path))
    assert isinstance(agent, LlmAgent)
    assert agent.before_agent_callback == [helpers.before_agent]
    assert agent.after_agent_callback == [helpers.after_agent, helpers.before_agent]
    assert agent.before_model_callback == [helpers.before_model]
    assert agent.after_model_callback == [helpers.after_model]
    assert agent.before_tool_callback == [helpers.before_tool]
    assert agent.after_tool_callback == [helpers.after_tool]


def test_model_code_and_schemas(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = ScriptedModel(replies=["x"])
    monkeypatch.setattr(helpers, "MODEL", model)
    path = write(
        tmp_path,
        "root.yaml",
        f"""
        name: root
        instruction: x
        model_code:
          name: {HERE}.MODEL
        input_schema:
          name: {HERE}.Question
        output_schema:
          name: {HERE}.Answer
        """,
    )
    agent = config_agent_utils.from_config(str(path))
    assert isinstance(agent, LlmAgent)
    assert agent.model is model
    assert agent.input_schema is helpers.Question
    assert agent.output_schema is helpers.Answer


def test_model_code_relative_to_the_package_of_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "my_yaml_agent_pkg"
    write(package, "__init__.py", "")
    write(
        package,
        "models.py",
        "from adk_runtime.testing import ScriptedModel\nMODEL = ScriptedModel(replies=[])\n",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    path = write(
        package, "root.yaml", "name: root\ninstruction: x\nmodel_code:\n  name: .models.MODEL\n"
    )
    agent = config_agent_utils.from_config(str(path))
    assert isinstance(agent, LlmAgent)
    assert isinstance(agent.model, ScriptedModel)
    assert type(agent.model).__module__ == "adk_runtime.testing.scripted_model"


def test_sub_agents_by_config_path_and_by_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    coded = LlmAgent(name="coded_helper", instruction="x")
    monkeypatch.setattr(helpers, "AGENT", coded)
    write(tmp_path, "helpers/billing.yaml", "name: billing\ninstruction: Bills.\n")
    write(
        tmp_path,
        "helpers/refunds.yaml",
        "name: refunds\ninstruction: Refunds.\nsub_agents:\n  - config_path: deeper/audit.yaml\n",
    )
    write(tmp_path, "helpers/deeper/audit.yaml", "name: audit\ninstruction: Audits.\n")
    path = write(
        tmp_path,
        "root.yaml",
        f"""
        name: root
        instruction: Route.
        sub_agents:
          - config_path: helpers/billing.yaml
          - config_path: ./helpers/refunds.yaml
          - code: {HERE}.AGENT
        """,
    )
    root = config_agent_utils.from_config(str(path))
    assert [agent.name for agent in root.sub_agents] == ["billing", "refunds", "coded_helper"]
    assert root.sub_agents[2] is coded
    assert all(agent.parent_agent is root for agent in root.sub_agents)
    audit = root.find_agent("audit")
    assert audit is not None
    assert audit.parent_agent is root.sub_agents[1]
    assert isinstance(audit, LlmAgent)
    assert audit.instruction == "Audits."


@pytest.mark.parametrize(
    ("agent_class", "expected"),
    [
        ("SequentialAgent", SequentialAgent),
        ("ParallelAgent", ParallelAgent),
        ("LoopAgent", LoopAgent),
        ("adk_runtime.agents.SequentialAgent", SequentialAgent),
        ("google.adk.agents.parallel_agent.ParallelAgent", ParallelAgent),
        ("google.adk.agents.LoopAgent", LoopAgent),
    ],
)
def test_workflow_agents(agent_class: str, expected: type, tmp_path: Path) -> None:
    write(tmp_path, "one.yaml", "name: one\ninstruction: first\n")
    write(tmp_path, "two.yaml", "name: two\ninstruction: second\n")
    path = write(
        tmp_path,
        "flow.yaml",
        f"""
        agent_class: {agent_class}
        name: flow
        description: Runs two agents.
        sub_agents:
          - config_path: one.yaml
          - config_path: two.yaml
        before_agent_callbacks:
          - name: {HERE}.before_agent
        """,
    )
    agent = config_agent_utils.from_config(str(path))
    assert type(agent) is expected
    assert agent.description == "Runs two agents."
    assert [sub.name for sub in agent.sub_agents] == ["one", "two"]
    assert agent.before_agent_callback == [helpers.before_agent]


def test_loop_agent_max_iterations(tmp_path: Path) -> None:
    path = write(tmp_path, "loop.yaml", "agent_class: LoopAgent\nname: loop\nmax_iterations: 4\n")
    agent = config_agent_utils.from_config(str(path))
    assert isinstance(agent, LoopAgent)
    assert agent.max_iterations == 4


@pytest.mark.parametrize(
    "agent_class", ["LlmAgent", "Agent", "google.adk.agents.llm_agent.LlmAgent", ""]
)
def test_llm_agent_class_spellings(agent_class: str, tmp_path: Path) -> None:
    path = write(tmp_path, "a.yaml", f"agent_class: '{agent_class}'\nname: a\ninstruction: x\n")
    assert type(config_agent_utils.from_config(str(path))) is LlmAgent


def test_custom_agent_class_with_a_field_of_its_own(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = write(
        tmp_path,
        "custom.yaml",
        f"""
        agent_class: {HERE}.GreeterAgent
        name: greeter
        greeting: hello from yaml
        not_a_field: dropped
        """,
    )
    with caplog.at_level(logging.WARNING, logger="adk_runtime.agents.config"):
        agent = config_agent_utils.from_config(str(path))
    assert isinstance(agent, helpers.GreeterAgent)
    assert agent.greeting == "hello from yaml"
    assert not hasattr(agent, "not_a_field")
    assert "not_a_field" in caplog.text
    assert "custom.yaml" in caplog.text


def test_custom_config_type_and_parse_config_hook(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", f"agent_class: {HERE}.ScoredAgent\nname: s\nscore: 4\n")
    agent = config_agent_utils.from_config(str(path))
    assert isinstance(agent, helpers.ScoredAgent)
    assert agent.score == 40  # the hook saw the ScoredConfig model and changed the value


def test_an_overridden_from_config_builds_the_agent(tmp_path: Path) -> None:
    path = write(tmp_path, "own.yaml", f"agent_class: {HERE}.SelfBuiltAgent\nname: own\n")
    agent = config_agent_utils.from_config(str(path))
    assert isinstance(agent, helpers.SelfBuiltAgent)
    assert agent.origin == "own.yaml"


def test_from_config_classmethod_takes_a_mapping_or_a_model(tmp_path: Path) -> None:
    path = str(tmp_path / "virtual.yaml")
    from_dict = LoopAgent.from_config({"name": "l", "max_iterations": 2}, path)
    from_model = LoopAgent.from_config(LoopAgentConfig(name="l", max_iterations=2), path)
    assert from_dict.max_iterations == from_model.max_iterations == 2
    assert LlmAgent.config_type is LlmAgentConfig
    assert LoopAgent.config_type is LoopAgentConfig


def test_agent_config_is_discriminated_by_agent_class() -> None:
    llm = AgentConfig.model_validate({"name": "a", "instruction": "x"})
    assert type(llm.root) is LlmAgentConfig
    loop = AgentConfig.model_validate({"agent_class": "LoopAgent", "name": "l"})
    assert type(loop.root) is LoopAgentConfig
    custom = AgentConfig.model_validate(
        yaml.safe_load("agent_class: my.pkg.Agent\nname: c\nextra_key: 1\n")
    )
    assert type(custom.root) is BaseAgentConfig
    assert custom.root.model_extra == {"extra_key": 1}


def test_example_tool_from_a_list_or_a_provider(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "root.yaml",
        f"""
        name: root
        instruction: x
        tools:
          - name: google.adk.tools.example_tool.ExampleTool
            args:
              examples:
                - input: {{role: user, parts: [{{text: "2 + 2?"}}]}}
                  output: [{{role: model, parts: [{{text: "4"}}]}}]
          - name: adk_runtime.tools.example_tool.ExampleTool
            args:
              examples: {HERE}.EXAMPLES
        """,
    )
    agent = config_agent_utils.from_config(str(path))
    assert isinstance(agent, LlmAgent)
    listed, provided = agent.tools
    assert isinstance(listed, ExampleTool)
    assert isinstance(provided, ExampleTool)
    assert isinstance(listed.examples, list)
    assert listed.examples[0].output[0].parts[0].text == "4"  # type: ignore[index]
    assert provided.examples is helpers.EXAMPLES


def test_tool_classes_build_from_their_config_models(tmp_path: Path) -> None:
    """google-adk's hook, called directly: ``Tool.from_config(ToolArgsConfig, path)``."""
    write(tmp_path, "expert.yaml", "name: expert\ninstruction: Knows things.\n")
    config_path = str(tmp_path / "root.yaml")

    tool = AgentTool.from_config(
        ToolArgsConfig(agent={"config_path": "expert.yaml"}, include_plugins=False), config_path
    )
    assert isinstance(tool.agent, LlmAgent)
    assert tool.agent.name == "expert"
    assert tool.include_plugins is False
    assert AgentToolConfig(agent="expert.yaml").agent.config_path == "expert.yaml"  # type: ignore[arg-type]

    greeting = helpers.GreetingTool.from_config(ToolArgsConfig(greeting="hey"), config_path)
    assert (greeting.greeting, greeting.times) == ("hey", 1)

    words = LangchainTool.from_config(
        ToolArgsConfig(tool="tests.agents_config.langchain_helpers.word_count", name="count"),
        config_path,
    )
    assert words.name == "count"
    with pytest.raises(ValidationError, match="colour"):
        AgentTool.from_config(ToolArgsConfig(agent="x.yaml", colour="red"), config_path)


def test_langchain_tool_entry(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "root.yaml",
        """
        name: root
        instruction: x
        tools:
          - name: google.adk.integrations.langchain.LangchainTool
            args:
              tool: tests.agents_config.langchain_helpers.word_count
              description: Counts words.
        """,
    )
    agent = config_agent_utils.from_config(str(path))
    assert isinstance(agent, LlmAgent)
    (tool,) = agent.tools
    assert isinstance(tool, LangchainTool)
    assert (tool.name, tool.description) == ("word_count", "Counts words.")
