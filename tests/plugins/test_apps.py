"""App and the Runner's ways to be built (app, or app_name and agent), plugins' lifecycle."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.apps import App, ResumabilityConfig
from adk_runtime.errors import InputValidationError, PluginError
from adk_runtime.plugins import BasePlugin, LoggingPlugin, PluginManager
from adk_runtime.runners import InMemoryRunner, Runner
from adk_runtime.sessions import InMemorySessionService
from adk_runtime.testing import ScriptedModel
from tests.llm.helpers import texts
from tests.plugins.recorder import Recorder


def _agent(*replies: str) -> LlmAgent:
    return LlmAgent(name="a", model=ScriptedModel(replies=list(replies)))


def test_app_checks_its_name_and_root_agent() -> None:
    with pytest.raises(ValueError, match="start it with a letter"):
        App(name="1app", root_agent=_agent())
    with pytest.raises(ValueError, match="reserved"):
        App(name="user", root_agent=_agent())
    with pytest.raises(ValueError, match="root_agent"):
        App(name="ok")
    with pytest.raises(ValueError, match=r"unique.*\['p'\]"):
        App(name="ok", root_agent=_agent(), plugins=[Recorder("p"), Recorder("p")])


def test_app_accepts_resumability_config() -> None:
    app = App(
        name="ok", root_agent=_agent(), resumability_config=ResumabilityConfig(is_resumable=True)
    )
    assert app.resumability_config is not None
    assert app.resumability_config.is_resumable


@pytest.mark.parametrize("config", [None, ResumabilityConfig(is_resumable=False)])
async def test_every_invocation_is_resumable_and_sees_the_apps_config(
    config: ResumabilityConfig | None,
) -> None:
    from adk_runtime.agents import BaseAgent, InvocationContext
    from adk_runtime.apps.app import ResumabilityConfig as AtGoogleAdksPath
    from adk_runtime.events import Event

    seen: list[InvocationContext] = []

    class Probe(BaseAgent):
        async def _run_async_impl(self, ctx: InvocationContext):  # type: ignore[override]
            seen.append(ctx)
            yield Event(author=self.name, invocation_id=ctx.invocation_id)

    app = App(name="shop", root_agent=Probe(name="probe"), resumability_config=config)
    runner = Runner(app=app, session_service=InMemorySessionService(), auto_create_session=True)
    message = types.Content(role="user", parts=[types.Part(text="hi")])
    async for _ in runner.run_async(user_id="u", session_id="s", new_message=message):
        pass
    assert AtGoogleAdksPath is ResumabilityConfig
    assert [ctx.resumability_config for ctx in seen] == [config]
    # google-adk's switch is off, yet the Runner's invocations resume (its workflow agents
    # record their checkpoints whatever the switch says)
    assert not seen[0].is_resumable
    assert seen[0].records_checkpoints


async def test_runner_from_an_app_runs_its_agent_with_its_plugins() -> None:
    plugin = Recorder()
    app = App(name="shop", root_agent=_agent("hello"), plugins=[plugin])
    service = InMemorySessionService()
    runner = Runner(app=app, session_service=service, auto_create_session=True)
    assert (runner.app_name, runner.agent, runner.app) == ("shop", app.root_agent, app)
    events = [
        e
        async for e in runner.run_async(
            user_id="u",
            session_id="s",
            new_message=types.Content(role="user", parts=[types.Part(text="hi")]),
        )
    ]
    assert texts(events) == ["hello"]
    assert "before_model_callback" in plugin.hooks()
    assert await service.get_session(app_name="shop", user_id="u", session_id="s") is not None
    renamed = Runner(app=app, app_name="shop_eu", session_service=service)
    assert renamed.app_name == "shop_eu"


def test_runner_arguments_follow_google_adks_rules() -> None:
    service = InMemorySessionService()
    app = App(name="shop", root_agent=_agent())
    with pytest.raises(ValueError, match="Only one of app, agent, or node may be provided"):
        Runner(app=app, agent=_agent(), session_service=service)
    with pytest.raises(ValueError, match="One of app, agent, or node must be provided"):
        Runner(app_name="x", session_service=service)
    with pytest.raises(ValueError, match="app_name"):
        Runner(agent=_agent(), session_service=service)
    with pytest.raises(ValueError, match="App\\(plugins"):
        Runner(app=app, plugins=[Recorder()], session_service=service)
    with pytest.warns(DeprecationWarning, match="deprecated"):
        runner = Runner(app_name="x", agent=_agent(), plugins=[Recorder()], session_service=service)
    assert [p.name for p in runner.plugin_manager.plugins] == ["recorder"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plain = Runner(app_name="x", agent=_agent(), session_service=service)
    assert plain.plugin_manager.plugins == []
    memory = InMemoryRunner(app=app)
    assert memory.app_name == "shop"
    assert InMemoryRunner(_agent()).app_name == "InMemoryRunner"


def test_plugin_names_are_unique_in_a_manager() -> None:
    manager = PluginManager([Recorder("a")])
    with pytest.raises(InputValidationError, match="'a'"):
        manager.register_plugin(Recorder("a"))
    manager.register_plugin(LoggingPlugin())
    assert manager.get_plugin("logging_plugin") is not None
    assert manager.get_plugin("missing") is None


class FailingClose(BasePlugin):
    async def close(self) -> None:
        raise OSError("socket")


async def test_runner_close_closes_every_plugin_and_reports_failures() -> None:
    first, last = Recorder("first"), Recorder("last")
    app = App(name="shop", root_agent=_agent(), plugins=[first, FailingClose("bad"), last])
    runner = Runner(app=app, session_service=InMemorySessionService())
    with pytest.raises(PluginError, match="Failed to close plugins: 'bad': OSError"):
        await runner.close()
    assert first.closed
    assert last.closed
    skipping = PluginManager([Recorder("kept")])
    skipping.set_skip_closing_plugins(True)
    await skipping.close()
    assert not skipping.plugins[0].closed  # type: ignore[attr-defined]


async def test_logging_plugin_logs_the_steps(caplog: pytest.LogCaptureFixture) -> None:
    app = App(name="shop", root_agent=_agent("hello"), plugins=[LoggingPlugin()])
    runner = InMemoryRunner(app=app)
    caplog.set_level("INFO", logger="adk_runtime.plugins.logging_plugin")
    await runner.session_service.create_session(app_name="shop", user_id="u", session_id="s")
    message: Any = types.Content(role="user", parts=[types.Part(text="hi")])
    events = [e async for e in runner.run_async(user_id="u", session_id="s", new_message=message)]
    assert texts(events) == ["hello"]
    lines = [record.getMessage() for record in caplog.records]
    assert any("user message" in line and "'hi'" in line for line in lines)
    assert any("calls model" in line for line in lines)
    assert any("model answered: 'hello'" in line for line in lines)
    assert lines[-1].endswith("ended")
