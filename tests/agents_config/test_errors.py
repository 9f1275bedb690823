"""Every way a YAML agent file can be wrong: a typed error naming the file and the field."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from adk_runtime.agents import LlmAgent, config_agent_utils
from adk_runtime.core.common_configs import AgentRefConfig, CodeConfig
from adk_runtime.errors import AdkRuntimeError, AgentConfigError
from tests.agents_config import helpers
from tests.agents_config.helpers import HERE, write


def load_error(path: Path) -> AgentConfigError:
    with pytest.raises(AgentConfigError) as caught:
        config_agent_utils.from_config(str(path))
    error = caught.value
    assert isinstance(error, ValueError)
    assert isinstance(error, AdkRuntimeError)
    return error


def agent_file(tmp_path: Path, body: str, name: str = "root.yaml") -> Path:
    return write(tmp_path, name, "name: root\ninstruction: x\n" + body)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="Config file not found"):
        config_agent_utils.from_config(str(tmp_path / "nowhere.yaml"))


def test_invalid_yaml_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.yaml", "name: a\ninstruction: [unclosed\n")
    error = load_error(path)
    assert error.path == str(path)
    assert "not valid YAML" in str(error)
    assert "line 3" in str(error)


@pytest.mark.parametrize(
    ("text", "words"),
    [("", "empty"), ("# only a comment\n", "empty"), ("- a\n- b\n", "got a list")],
)
def test_empty_file_or_not_a_mapping(text: str, words: str, tmp_path: Path) -> None:
    path = write(tmp_path, "a.yaml", text)
    error = load_error(path)
    assert words in str(error)
    assert str(path) in str(error)


@pytest.mark.parametrize(
    ("agent_class", "words"),
    [
        ("NoSuchAgent", "Unknown agent_class 'NoSuchAgent'"),
        ("Context", "Unknown agent_class 'Context'"),
        ("no_such_package.Agent", "there is no module 'no_such_package'"),
        (f"{HERE}.NoSuchAgent", "has no attribute 'NoSuchAgent'"),
        (f"{HERE}.Question", "must name a BaseAgent subclass"),
        ("os.system", "Blocked module reference"),
        ("7", "must be a string"),
    ],
)
def test_bad_agent_class(agent_class: str, words: str, tmp_path: Path) -> None:
    path = write(tmp_path, "a.yaml", f"agent_class: {agent_class}\nname: a\ninstruction: x\n")
    error = load_error(path)
    assert words in str(error)
    assert error.field == "agent_class"
    assert error.path == str(path)


def test_unknown_key_lists_the_keys(tmp_path: Path) -> None:
    error = load_error(agent_file(tmp_path, "instructoin: typo\n"))
    assert error.field == "instructoin"
    assert "unknown key" in str(error)
    assert "LlmAgentConfig" in str(error)
    assert "instruction" in error.reason  # the valid keys are listed


def test_missing_required_key(tmp_path: Path) -> None:
    error = load_error(write(tmp_path, "a.yaml", "name: a\n"))
    assert error.field == "instruction"
    assert "required" in str(error)


def test_wrong_value_type(tmp_path: Path) -> None:
    error = load_error(
        write(tmp_path, "loop.yaml", "agent_class: LoopAgent\nname: l\nmax_iterations: many\n")
    )
    assert error.field == "max_iterations"


def test_model_and_model_code_together(tmp_path: Path) -> None:
    error = load_error(
        agent_file(tmp_path, f"model: gemini-2.5-flash\nmodel_code:\n  name: {HERE}.MODEL\n")
    )
    assert "not both" in str(error)


def test_agent_refuses_a_value(tmp_path: Path) -> None:
    error = load_error(write(tmp_path, "a.yaml", "name: not an identifier\ninstruction: x\n"))
    assert error.field == "name"
    assert "Python identifier" in str(error)


@pytest.mark.parametrize(
    ("entry", "field", "words"),
    [
        ("{code: a.b, config_path: b.yaml}", "sub_agents[0]", "exactly one"),
        ("{}", "sub_agents[0]", "exactly one"),
        ("{config_path: missing.yaml}", "sub_agents[0]", "missing.yaml"),
        (f"{{code: {HERE}.GreeterAgent}}", "sub_agents[0]", "reference to a class"),
        (f"{{code: {HERE}.refund}}", "sub_agents[0]", "reference to a callable"),
        (f"{{code: {HERE}.NOT_AN_AGENT}}", "sub_agents[0]", "non-agent dict"),
        ("{code: helper}", "sub_agents[0]", "Invalid code reference"),
        ("{code: subprocess.Popen}", "sub_agents[0]", "Blocked module reference"),
        ("{code: no_such_package.agent}", "sub_agents[0]", "there is no module"),
    ],
)
def test_bad_sub_agent_reference(entry: str, field: str, words: str, tmp_path: Path) -> None:
    path = agent_file(tmp_path, f"sub_agents:\n  - {entry}\n")
    if "missing.yaml" in entry:
        with pytest.raises(FileNotFoundError, match=r"missing\.yaml"):
            config_agent_utils.from_config(str(path))
        return
    error = load_error(path)
    assert error.field == field
    assert error.path == str(path)
    assert words in str(error)


def test_config_path_may_not_leave_the_directory(tmp_path: Path) -> None:
    write(tmp_path, "outside.yaml", "name: outside\ninstruction: x\n")
    inner = tmp_path / "agents"
    path = agent_file(inner, "sub_agents:\n  - config_path: ../outside.yaml\n")
    error = load_error(path)
    assert "Path traversal detected" in str(error)
    assert error.field == "sub_agents[0]"
    absolute = agent_file(
        inner, f"sub_agents:\n  - config_path: {tmp_path / 'outside.yaml'}\n", "abs.yaml"
    )
    assert "Absolute paths are not allowed" in str(load_error(absolute))


def test_a_symlink_leading_out_is_refused(tmp_path: Path) -> None:
    write(tmp_path, "secret/outside.yaml", "name: outside\ninstruction: x\n")
    inner = tmp_path / "agents"
    inner.mkdir()
    os.symlink(tmp_path / "secret", inner / "link")
    path = agent_file(inner, "sub_agents:\n  - config_path: link/outside.yaml\n")
    assert "Path traversal detected" in str(load_error(path))


def test_a_path_that_comes_back_inside_is_allowed(tmp_path: Path) -> None:
    write(tmp_path, "agents/sub/child.yaml", "name: child\ninstruction: x\n")
    path = agent_file(tmp_path / "agents", "sub_agents:\n  - config_path: sub/../sub/child.yaml\n")
    assert config_agent_utils.from_config(str(path)).sub_agents[0].name == "child"


def test_cycle_of_config_paths(tmp_path: Path) -> None:
    write(tmp_path, "a.yaml", "name: a\ninstruction: x\nsub_agents:\n  - config_path: b.yaml\n")
    write(tmp_path, "b.yaml", "name: b\ninstruction: x\nsub_agents:\n  - config_path: a.yaml\n")
    error = load_error(tmp_path / "a.yaml")
    assert "cycle" in str(error)
    assert str(error).count("a.yaml") >= 2
    assert "b.yaml" in str(error)


def test_an_error_in_a_sub_agent_file_names_that_file(tmp_path: Path) -> None:
    child = write(tmp_path, "child.yaml", "name: child\ninstruction: x\ntools:\n  - name: nope\n")
    error = load_error(agent_file(tmp_path, "sub_agents:\n  - config_path: child.yaml\n"))
    assert error.path == str(child)
    assert error.field == "tools[0]"


@pytest.mark.parametrize(
    ("entry", "field", "words"),
    [
        ("{name: no_such_tool}", "tools[0]", "Unknown built-in tool 'no_such_tool'"),
        ("{name: no_such_package.tool}", "tools[0]", "there is no module"),
        (f"{{name: {HERE}.no_such_tool}}", "tools[0]", "has no attribute"),
        ("{name: os.system}", "tools[0]", "Blocked module reference"),
        ("{name: pickle.loads}", "tools[0]", "Blocked module reference"),
        ("{name: yaml.unsafe_load}", "tools[0]", "Blocked module reference"),
        (f"{{name: {HERE}.REFUND_TOOL, args: {{a: 1}}}}", "tools[0]", "is a tool object"),
        (f"{{name: {HERE}.Question}}", "tools[0]", "not a BaseTool or BaseToolset"),
        (f"{{name: {HERE}.NOT_AN_AGENT}}", "tools[0]", "is a dict"),
        (f"{{name: {HERE}.make_nothing, args: {{a: 1}}}}", "tools[0]", "returned a int"),
        (
            f"{{name: {HERE}.GreetingTool, args: {{colour: red}}}}",
            "tools[0].args",
            "takes no argument 'colour'",
        ),
        (f"{{name: {HERE}.GreetingTool}}", "tools[0].args", "refused the arguments"),
        (
            f"{{name: {HERE}.SettingsTool, args: {{settings: {{level: high}}}}}}",
            "tools[0].args.settings.level",
            "integer",
        ),
        ("{name: AgentTool, args: {agent: ../x.yaml}}", "tools[0].args.agent", "Path traversal"),
        (
            "{name: AgentTool, args: {agent: x.yaml, colour: red}}",
            "tools[0].args.colour",
            "unknown",
        ),
        (
            f"{{name: ExampleTool, args: {{examples: {HERE}.AGENT}}}}",
            "tools[0].args.examples",
            "not a BaseExampleProvider",
        ),
        (
            "{name: adk_runtime.integrations.langchain.LangchainTool, "
            f"args: {{tool: {HERE}.AGENT}}}}",
            "tools[0].args.tool",
            "not a LangChain tool",
        ),
        ("{name: google_search, extra: 1}", "tools[0].extra", "unknown key"),
    ],
)
def test_bad_tool(entry: str, field: str, words: str, tmp_path: Path) -> None:
    path = agent_file(tmp_path, f"tools:\n  - name: load_memory\n  - {entry}\n")
    error = load_error(path)
    assert error.field == field.replace("tools[0]", "tools[1]"), str(error)
    assert words in str(error)


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        (f"{HERE}.NOT_AN_AGENT", "not a function"),
        (f"{HERE}.missing_callback", "has no attribute"),
        ("builtins.exec", "Blocked module reference"),
        ("callback", "not a dotted path"),
    ],
)
def test_bad_callback(entry: str, words: str, tmp_path: Path) -> None:
    path = agent_file(
        tmp_path, f"before_model_callbacks:\n  - name: {HERE}.before_model\n  - name: {entry}\n"
    )
    error = load_error(path)
    assert error.field == "before_model_callbacks[1]"
    assert words in str(error)


def test_sub_agent_by_code_that_already_has_a_parent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken = LlmAgent(name="taken", instruction="x")
    LlmAgent(name="owner", instruction="x", sub_agents=[taken])
    monkeypatch.setattr(helpers, "AGENT", taken)
    error = load_error(agent_file(tmp_path, f"sub_agents:\n  - code: {HERE}.AGENT\n"))
    assert "already has parent 'owner'" in str(error)


def test_a_broken_module_fails_as_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "broken_yaml_tools_mod.py", "import no_such_dependency_xyz\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    path = agent_file(tmp_path, "tools:\n  - name: broken_yaml_tools_mod.tool\n")
    with pytest.raises(ModuleNotFoundError, match="no_such_dependency_xyz"):
        config_agent_utils.from_config(str(path))


def test_resolve_fully_qualified_name_wraps_every_failure() -> None:
    with pytest.raises(AgentConfigError, match="Invalid fully qualified name") as caught:
        config_agent_utils.resolve_fully_qualified_name("subprocess.Popen")
    assert "Blocked module reference" in str(caught.value.__cause__)
    assert config_agent_utils.resolve_fully_qualified_name(f"{HERE}.refund") is helpers.refund
    assert config_agent_utils.resolve_fully_qualified_name("google.adk.agents.LlmAgent") is LlmAgent


def test_the_denylist_can_be_turned_off_for_tests() -> None:
    config_agent_utils._set_enforce_denylist(False)
    try:
        assert config_agent_utils.resolve_code_reference(CodeConfig(name="os.getcwd")) is os.getcwd
    finally:
        config_agent_utils._set_enforce_denylist(True)
    with pytest.raises(AgentConfigError, match="Blocked module reference"):
        config_agent_utils.resolve_code_reference(CodeConfig(name="os.getcwd"))


def test_resolve_agent_reference_directly(tmp_path: Path) -> None:
    main = agent_file(tmp_path, "")
    write(tmp_path, "sub/child.yaml", "name: child\ninstruction: x\n")
    child = config_agent_utils.resolve_agent_reference(
        AgentRefConfig(config_path="sub/child.yaml"), str(main)
    )
    assert child.name == "child"
    with pytest.raises(AgentConfigError, match="Absolute paths are not allowed"):
        config_agent_utils.resolve_agent_reference(
            AgentRefConfig(config_path="/etc/passwd"), str(main)
        )
    with pytest.raises(ValueError, match="exactly one"):
        AgentRefConfig()


def test_resolve_callbacks_refuses_what_is_not_callable() -> None:
    assert config_agent_utils.resolve_callbacks([CodeConfig(name=f"{HERE}.after_agent")]) == [
        helpers.after_agent
    ]
    with pytest.raises(AgentConfigError, match="not a function"):
        config_agent_utils.resolve_callbacks([CodeConfig(name=f"{HERE}.NOT_AN_AGENT")])


def test_the_args_key_denylist_refuses_args_when_turned_on(tmp_path: Path) -> None:
    code_args = agent_file(tmp_path, f"tools:\n  - name: {HERE}.make_tool\n    args: {{n: 1}}\n")
    nested = agent_file(
        tmp_path, f"sub_agents:\n  - code: {HERE}.AGENT\n    args: {{x: 1}}\n", "nested.yaml"
    )
    mcp_code = agent_file(
        tmp_path,
        f"tools:\n  - name: McpToolset\n    args: {{tool_filter: {HERE}.refund}}\n",
        "mcp_code.yaml",
    )
    config_agent_utils._set_enforce_yaml_key_denylist(True)
    try:
        for path in (code_args, nested):
            error = load_error(path)
            assert "Blocked key 'args' found" in str(error)
            assert error.path == str(path)
        assert "list of tool names" in str(load_error(mcp_code))
        # An McpToolset's data-only args pass (a stdio server's own `args` are its argv).
        server = {"command": "srv", "args": ["--quiet"]}
        mcp_args = {"tool_filter": ["a"], "connection_params": {"server_params": server}}
        config_agent_utils._config_denylist.check_config_keys(
            {"name": "root", "tools": [{"name": "McpToolset", "args": mcp_args}]}, "mcp.yaml"
        )
    finally:
        config_agent_utils._set_enforce_yaml_key_denylist(False)
    assert "Blocked key" not in str(load_error(nested))  # off again: args reach the agent
