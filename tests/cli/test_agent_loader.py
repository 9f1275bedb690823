"""AgentLoader: agents by folder name, as google-adk's ``adk web`` finds them."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from adk_runtime.agents import BaseAgent, LlmAgent, SequentialAgent
from adk_runtime.apps.app import App
from adk_runtime.cli.utils.agent_loader import (
    AgentLoader,
    AgentLoadError,
    is_single_agent_directory,
)

AGENT = "from adk_runtime.agents import LlmAgent\nroot_agent = LlmAgent(name={name!r})\n"


@pytest.fixture
def agents_dir(tmp_path: Path) -> Iterator[Path]:
    """A directory with one agent of each layout; its modules are forgotten afterwards."""
    root = tmp_path / "agents_dir"
    (root / "in_agent_py").mkdir(parents=True)
    (root / "in_agent_py" / "__init__.py").write_text("from . import agent\n")
    (root / "in_agent_py" / "agent.py").write_text(AGENT.format(name="first"))
    (root / "in_package").mkdir()
    (root / "in_package" / "__init__.py").write_text(AGENT.format(name="second"))
    (root / "in_module.py").write_text(AGENT.format(name="third"))
    (root / "with_app").mkdir()
    (root / "with_app" / "agent.py").write_text(
        "from adk_runtime.agents import LlmAgent\nfrom adk_runtime.apps.app import App\n"
        "root_agent = LlmAgent(name='inner')\napp = App(name='with_app', root_agent=root_agent)\n"
    )
    (root / "in_yaml").mkdir()
    (root / "in_yaml" / "root_agent.yaml").write_text(
        "agent_class: SequentialAgent\nname: pipeline\ndescription: from YAML\n"
    )
    (root / "not_an_agent").mkdir()
    (root / "not_an_agent" / "__init__.py").write_text("root_agent = 'a string'\n")
    (root / "broken_import").mkdir()
    (root / "broken_import" / "agent.py").write_text("import package_that_is_not_here\n")
    (root / "notes").mkdir()  # a plain folder: not listed
    yield root
    names = {p.stem for p in root.iterdir()}
    for module in [m for m in sys.modules if m.partition(".")[0] in names]:
        del sys.modules[module]
    while str(root) in sys.path:
        sys.path.remove(str(root))


@pytest.mark.parametrize(
    ("name", "agent_name"),
    [("in_agent_py", "first"), ("in_package", "second"), ("in_module", "third")],
)
def test_each_python_layout_loads_its_root_agent(
    agents_dir: Path, name: str, agent_name: str
) -> None:
    loaded = AgentLoader(agents_dir).load_agent(name)
    assert isinstance(loaded, LlmAgent)
    assert loaded.name == agent_name


def test_an_app_is_preferred_and_yaml_agents_load(agents_dir: Path) -> None:
    loader = AgentLoader(agents_dir)
    app = loader.load_agent("with_app")
    assert isinstance(app, App)
    assert app.name == "with_app"
    pipeline = loader.load_agent("in_yaml")
    assert isinstance(pipeline, SequentialAgent)
    assert pipeline.description == "from YAML"


def test_agents_are_cached_until_removed(agents_dir: Path) -> None:
    loader = AgentLoader(agents_dir)
    first = loader.load_agent("in_agent_py")
    assert loader.load_agent("in_agent_py") is first
    (agents_dir / "in_agent_py" / "agent.py").write_text(AGENT.format(name="edited"))
    loader.remove_agent_from_cache("in_agent_py")
    assert "in_agent_py.agent" not in sys.modules
    reloaded = loader.load_agent("in_agent_py")
    assert isinstance(reloaded, BaseAgent)
    assert reloaded.name == "edited"


@pytest.mark.parametrize("name", ["../in_module", "in_module.agent", "os", "a-b", "", "x" * 200])
def test_names_that_are_not_agent_folders_import_nothing(agents_dir: Path, name: str) -> None:
    before = set(sys.modules)
    with pytest.raises(AgentLoadError):
        AgentLoader(agents_dir).load_agent(name)
    assert set(sys.modules) == before


def test_what_a_module_exposes_must_be_an_agent(agents_dir: Path) -> None:
    loader = AgentLoader(agents_dir)
    with pytest.raises(AgentLoadError, match=r"not_an_agent\.root_agent is a str") as raised:
        loader.load_agent("not_an_agent")
    assert isinstance(raised.value, ValueError)  # as google-adk's loader raises
    with pytest.raises(AgentLoadError, match="package_that_is_not_here"):
        loader.load_agent("broken_import")
    with pytest.raises(AgentLoadError, match="exposes nothing to run"):
        loader.load_agent("notes")


def test_listing_and_details(agents_dir: Path) -> None:
    loader = AgentLoader(agents_dir)
    names = loader.list_agents()
    assert names == sorted(names)
    assert {"in_agent_py", "in_package", "with_app", "in_yaml"} <= set(names)
    assert "notes" not in names
    details = {row["name"]: row for row in loader.list_agents_detailed()}
    assert details["in_yaml"] == {
        "name": "in_yaml",
        "root_agent_name": "pipeline",
        "description": "from YAML",
        "language": "yaml",
    }
    assert details["with_app"]["root_agent_name"] == "inner"
    assert "not_an_agent" not in details  # did not load: left out, the others still listed


def test_single_agent_directory_serves_only_that_agent(agents_dir: Path) -> None:
    folder = agents_dir / "in_agent_py"
    assert is_single_agent_directory(folder)
    assert not is_single_agent_directory(agents_dir)
    loader = AgentLoader(folder)
    assert loader.is_single_agent
    assert loader.list_agents() == ["in_agent_py"]
    assert isinstance(loader.load_agent("in_agent_py"), LlmAgent)
    with pytest.raises(AgentLoadError, match="single agent"):
        loader.load_agent("in_package")


def test_the_agent_folder_env_file_is_read_without_overriding(
    agents_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (agents_dir / "in_package" / ".env").write_text(
        "LOADER_TEST_NEW=from-env\nLOADER_TEST_SET=no\n"
    )
    monkeypatch.setenv("LOADER_TEST_SET", "kept")
    monkeypatch.delenv("LOADER_TEST_NEW", raising=False)
    AgentLoader(agents_dir).load_agent("in_package")
    assert os.environ["LOADER_TEST_NEW"] == "from-env"
    assert os.environ["LOADER_TEST_SET"] == "kept"
    monkeypatch.delenv("LOADER_TEST_NEW")


def test_a_loaded_agent_keeps_its_app_name_for_the_runner(agents_dir: Path) -> None:
    from adk_runtime.runners import Runner
    from adk_runtime.sessions import InMemorySessionService

    agent = AgentLoader(agents_dir).load_agent("in_agent_py")
    assert isinstance(agent, BaseAgent)
    service = InMemorySessionService()
    assert (
        Runner(
            app_name="in_agent_py", agent=agent, session_service=service
        )._app_name_alignment_hint
        is None
    )
    hint = Runner(app_name="other", agent=agent, session_service=service)._app_name_alignment_hint
    assert hint is not None
    assert "'in_agent_py'" in hint


def test_a_workflow_root_loads_as_the_agent_that_runs_it(agents_dir: Path) -> None:
    (agents_dir / "flow").mkdir()
    (agents_dir / "flow" / "agent.py").write_text(
        "from adk_runtime.workflow import START, Workflow\n"
        "def step(node_input):\n    return 'done'\n"
        "root_agent = Workflow(name='flow', edges=[(START, step)])\n"
    )
    from adk_runtime.workflow import Workflow
    from adk_runtime.workflow._root import NodeAgent

    loaded = AgentLoader(agents_dir).load_agent("flow")
    assert isinstance(loaded, NodeAgent)
    assert isinstance(loaded.node, Workflow)
    assert loaded.name == "flow"
