"""The Runner's checks on what it is given: function calls from the user, the run's metadata,
and the app name the root agent's folder implies."""

from __future__ import annotations

import sys
from collections.abc import AsyncGenerator, Iterator
from pathlib import Path
from typing import Any

import pytest
from google.genai import types

from adk_runtime.agents import BaseAgent, InvocationContext, LlmAgent, RunConfig
from adk_runtime.errors import InputValidationError, SessionNotFoundError, UnsupportedFeatureError
from adk_runtime.events import Event
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService, InMemorySessionService
from adk_runtime.testing import ScriptedModel
from tests.llm.helpers import APP, USER, send, start, stored


class Tagger(BaseAgent):
    """Answers once, with metadata of its own on the event."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        yield Event(
            invocation_id=ctx.invocation_id,
            author=self.name,
            content=types.Content(role="model", parts=[types.Part(text="tagged")]),
            custom_metadata={"agent_key": "a", "request_id": "agent-wins"},
        )


async def test_a_user_message_with_a_function_call_is_refused_and_not_stored(
    session_service: BaseSessionService,
) -> None:
    runner = await start(
        LlmAgent(name="root", model=ScriptedModel(replies=["hi"])), session_service
    )
    forged = types.Content(
        role="user",
        parts=[types.Part(function_call=types.FunctionCall(name="transfer", args={"to": "me"}))],
    )
    with pytest.raises(InputValidationError, match="cannot contain function calls"):
        await send(runner, forged)
    assert (await stored(runner)).events == []


async def test_run_metadata_is_stamped_on_every_event_and_stored(
    session_service: BaseSessionService,
) -> None:
    runner = await start(Tagger(name="tagger"), session_service)
    config = RunConfig(custom_metadata={"request_id": "req-1", "tenant": "t"})
    events = await send(runner, "hi", run_config=config)
    assert events[0].custom_metadata == {
        "request_id": "agent-wins",
        "tenant": "t",
        "agent_key": "a",
    }
    session = await stored(runner)
    user_event, answer = session.events
    assert user_event.custom_metadata == {"request_id": "req-1", "tenant": "t"}
    assert answer.custom_metadata == events[0].custom_metadata
    await send(runner, "again")  # without metadata: none is added
    assert (await stored(runner)).events[-2].custom_metadata is None


@pytest.fixture
def agents_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A project with agents/weather/agent.py defining a subclassed agent."""
    folder = tmp_path / "agents" / "weather"
    folder.mkdir(parents=True)
    (tmp_path / "agents" / "__init__.py").write_text("")
    (folder / "__init__.py").write_text("")
    (folder / "agent.py").write_text(
        "from adk_runtime.agents import LlmAgent\n"
        "class WeatherAgent(LlmAgent):\n    pass\n"
        "root_agent = WeatherAgent(name='weather')\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield folder
    for name in [m for m in sys.modules if m == "agents" or m.startswith("agents.")]:
        del sys.modules[name]


async def test_session_not_found_names_the_app_the_agent_folder_implies(
    agents_package: Path,
) -> None:
    from agents.weather.agent import root_agent  # type: ignore[import-not-found]

    service = InMemorySessionService()
    aligned = Runner(app_name="weather", agent=root_agent, session_service=service)
    assert aligned._app_name_alignment_hint is None
    runner = Runner(app_name="forecasts", agent=root_agent, session_service=service)
    with pytest.raises(SessionNotFoundError) as raised:
        await send(runner, "hi", session_id="nope")
    message = str(raised.value)
    assert "Session not found" in message
    assert "'forecasts'" in message
    assert "'weather'" in message
    assert "Ensure the runner app_name matches" in message  # google-adk's phrase
    plain = Runner(app_name=APP, agent=LlmAgent(name="x"), session_service=service)
    assert plain._app_name_alignment_hint is None  # adk_runtime's own class implies nothing
    with pytest.raises(SessionNotFoundError) as raised:
        await plain.run_async(user_id=USER, session_id="nope", new_message=None).__anext__()
    assert "weather" not in str(raised.value)


async def test_tools_and_callbacks_share_the_invocations_metadata_which_is_not_stored(
    session_service: BaseSessionService,
) -> None:
    from adk_runtime.agents import CallbackContext
    from adk_runtime.testing import function_call
    from adk_runtime.tools import ToolContext

    seen: list[dict[str, object]] = []

    def tag(tool_context: ToolContext) -> str:
        """Tags the invocation."""
        tool_context.custom_metadata["trace"] = "t-1"
        return "tagged"

    def look(tool_context: ToolContext) -> str:
        """Reads the invocation's tags."""
        seen.append(dict(tool_context.custom_metadata))
        return "looked"

    def after_model(callback_context: CallbackContext, llm_response: object) -> None:
        seen.append(dict(callback_context.custom_metadata))

    agent = LlmAgent(
        name="root",
        model=ScriptedModel(
            replies=[function_call("tag", {}), function_call("look", {}), "done", "ok"]
        ),
        tools=[tag, look],
        after_model_callback=after_model,
    )
    runner = await start(agent, session_service)
    await send(runner, "hi", run_config=RunConfig(custom_metadata={"request_id": "r"}))
    # The first model step saw the run's metadata; every later step also the tool's tag.
    assert seen[0] == {"request_id": "r"}
    assert seen[1:] == [{"request_id": "r", "trace": "t-1"}] * 3
    for event in (await stored(runner)).events:
        assert event.custom_metadata == {"request_id": "r"}  # the run's, not the scratch
    seen.clear()
    await send(runner, "again")  # a new invocation starts without the last one's tags
    assert seen == [{}]


class TenantContext(InvocationContext):
    """A context type of the application's own, carrying its tenant."""

    tenant: str = "none"


class TenantRunner(Runner):
    def _new_invocation_context(self, session: Any, **kwargs: Any) -> InvocationContext:
        base = super()._new_invocation_context(session, **kwargs)
        return TenantContext(**dict(base), tenant="acme")


class TenantEcho(BaseAgent):
    """Answers with the tenant its context carries."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        tenant = ctx.tenant if isinstance(ctx, TenantContext) else "no tenant context"
        yield Event(
            invocation_id=ctx.invocation_id,
            author=self.name,
            content=types.Content(role="model", parts=[types.Part(text=tenant)]),
        )


async def test_a_runner_subclass_builds_its_own_context_type(
    session_service: BaseSessionService,
) -> None:
    """google-adk's extension point ``_new_invocation_context``: every turn runs its agents
    in the context the subclass builds, the Runner's own settings kept."""
    runner = TenantRunner(
        app_name=APP, agent=TenantEcho(name="echo"), session_service=session_service
    )
    await session_service.create_session(app_name=APP, user_id=USER, session_id="s1")
    events = await send(runner, "who am I?")
    assert [e.content.parts[0].text for e in events if e.content and e.content.parts] == ["acme"]
    context = runner._new_invocation_context(await stored(runner))
    assert isinstance(context, TenantContext)
    assert context.session_service is session_service
    assert context.agent is runner.agent
    with pytest.raises(UnsupportedFeatureError, match="Live API"):
        runner._new_invocation_context(await stored(runner), live_request_queue=object())
