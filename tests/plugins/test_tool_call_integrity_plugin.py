"""ToolCallIntegrityPlugin: stored calls carry an HMAC stamp; a changed or foreign call never runs.

The store-level tests run on every backend: the stamp is taken before the commit and checked
on what the store gives back, so it must survive each store's round trip; the tampering is
done in the store itself, behind the service's back.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import httpx
import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent, RunConfig
from adk_runtime.apps import App
from adk_runtime.errors import InputValidationError, PluginError
from adk_runtime.events import Event
from adk_runtime.events._internal_metadata import RESTORED_EVENT_KEY
from adk_runtime.flows.llm_flows.functions import REQUEST_CONFIRMATION_FUNCTION_CALL_NAME
from adk_runtime.plugins import BasePlugin, ToolCallIntegrityError, ToolCallIntegrityPlugin
from adk_runtime.plugins._tool_call_integrity_plugin import STAMPS_KEY
from adk_runtime.runners import Runner
from adk_runtime.server import create_app
from adk_runtime.sessions import BaseSessionService, InMemorySessionService, Session
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import FunctionTool
from tests.backends import overwrite_stored_event, twin
from tests.llm.helpers import APP, USER, send, stored, texts, user

KEY = b"k" * 32
RUNS: list[dict[str, Any]] = []
ARGS: dict[str, Any] = {"to": "zoë ✓", "amount": 2.0, "memo": {"tags": ["a", 1.5, None]}}


def transfer_money(to: str, amount: float, memo: dict[str, Any]) -> dict[str, Any]:
    """Send money to someone."""
    RUNS.append({"to": to, "amount": amount, "memo": memo})
    return {"sent": amount}


@pytest.fixture(autouse=True)
def _clear_runs() -> None:
    RUNS.clear()


def bank(*plugins: BasePlugin, call_id: str | None = "c1", resumed: bool = False) -> App:
    """The bank app; its model asks for the transfer, or (``resumed``) says it is done."""
    call = function_call("transfer_money", ARGS, id=call_id)
    if call_id is None:  # the model gave no id: the flow gives it one before the commit
        assert call.function_call is not None
        call.function_call.id = None
    model = ScriptedModel(replies=["sent"] if resumed else [call, "sent"])
    tool = FunctionTool(transfer_money, require_confirmation=True)
    agent = LlmAgent(name="bank", model=model, tools=[tool])
    return App(name=APP, root_agent=agent, plugins=list(plugins))


async def runner_on(service: BaseSessionService, app: App, *, create: bool = True) -> Runner:
    if create:
        await service.create_session(app_name=APP, user_id=USER, session_id="s1")
    return Runner(app=app, session_service=service)


def confirm(paused: list[Event]) -> types.Content:
    request = next(
        e
        for e in paused
        if any(c.name == REQUEST_CONFIRMATION_FUNCTION_CALL_NAME for c in e.get_function_calls())
    )
    call = request.get_function_calls()[0]
    response = types.FunctionResponse(
        id=call.id, name=REQUEST_CONFIRMATION_FUNCTION_CALL_NAME, response={"confirmed": True}
    )
    return types.Content(role="user", parts=[types.Part(function_response=response)])


def position_of_call(events: list[Event], name: str) -> int:
    return next(
        i for i, e in enumerate(events) if any(c.name == name for c in e.get_function_calls())
    )


async def test_calls_are_stamped_at_commit_and_verify_after_a_restart(
    session_service: BaseSessionService,
) -> None:
    runner = await runner_on(session_service, bank(ToolCallIntegrityPlugin(KEY), call_id=None))
    paused = await send(runner, "send zoë 2")
    assert RUNS == []
    session = await stored(runner)
    calls = [e for e in session.events if e.get_function_calls()]
    assert len(calls) == 2  # the model's call and the confirmation request
    for event in calls:
        stamps = (event.custom_metadata or {})[STAMPS_KEY]
        assert set(stamps) == {c.id for c in event.get_function_calls()}
        assert all(s.startswith("v1:") and len(s) == 3 + 64 for s in stamps.values())
    # Another replica, another Runner and plugin object, the same key: what the store gave
    # back verifies, and the confirmed call runs with exactly the stored arguments.
    async with twin(session_service) as other:
        again = await runner_on(
            other, bank(ToolCallIntegrityPlugin([b"new" * 8, KEY]), resumed=True), create=False
        )
        resumed = await send(again, confirm(paused))
    assert RUNS == [ARGS]
    assert texts(resumed) == ["sent"]


async def forge(service: BaseSessionService, session: Session, change: dict[str, Any]) -> None:
    """Change the stored call ``c1`` in the store, in the model's event and in the copy the
    confirmation request holds alike (so that only the stamps can tell)."""
    for position, event in enumerate(session.events):
        calls = event.get_function_calls()
        if not calls:
            continue
        data = json.loads(event.model_dump_json(by_alias=True))
        call = data["content"]["parts"][0]["functionCall"]
        target = call if call["name"] == "transfer_money" else call["args"]["originalFunctionCall"]
        for key, value in change.items():
            if key == "id":
                target["id"] = value
            else:
                target["args"][key] = value
        await overwrite_stored_event(service, (APP, USER, session.id), position, json.dumps(data))


async def test_a_call_changed_in_the_store_never_runs(
    session_service: BaseSessionService,
) -> None:
    runner = await runner_on(session_service, bank(ToolCallIntegrityPlugin(KEY)))
    paused = await send(runner, "send zoë 2")
    await forge(session_service, await stored(runner), {"amount": 5000})
    with pytest.raises(PluginError) as raised:
        await send(runner, confirm(paused))
    assert isinstance(raised.value.__cause__, ToolCallIntegrityError)
    assert "does not match its integrity stamp" in str(raised.value.__cause__)
    assert RUNS == []


async def test_a_call_given_another_id_in_the_store_is_refused(
    session_service: BaseSessionService,
) -> None:
    runner = await runner_on(session_service, bank(ToolCallIntegrityPlugin(KEY)))
    paused = await send(runner, "send zoë 2")
    await forge(session_service, await stored(runner), {"id": "c9"})
    with pytest.raises(PluginError) as raised:
        await send(runner, confirm(paused))
    assert isinstance(raised.value.__cause__, ToolCallIntegrityError)
    assert RUNS == []


async def test_calls_stored_before_the_plugin_are_refused_unless_allowed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    service = InMemorySessionService()
    paused = await send(await runner_on(service, bank()), "send zoë 2")
    strict = Runner(app=bank(ToolCallIntegrityPlugin(KEY)), session_service=service)
    with pytest.raises(PluginError) as raised:
        await send(strict, confirm(paused))
    assert "has no integrity stamp" in str(raised.value.__cause__)
    assert RUNS == []
    lenient = Runner(
        app=bank(ToolCallIntegrityPlugin(KEY, allow_unstamped_calls=True)), session_service=service
    )
    with caplog.at_level(logging.WARNING):
        await send(lenient, confirm(paused))
    assert RUNS == [ARGS]
    assert "has no integrity stamp" in caplog.text


async def test_a_retired_key_no_longer_verifies() -> None:
    service = InMemorySessionService()
    paused = await send(await runner_on(service, bank(ToolCallIntegrityPlugin(KEY))), "send")
    rotated = Runner(app=bank(ToolCallIntegrityPlugin(b"other key")), session_service=service)
    with pytest.raises(PluginError):
        await send(rotated, confirm(paused))
    assert RUNS == []


async def test_restored_history_is_never_run() -> None:
    service = InMemorySessionService()
    source = await runner_on(service, bank(ToolCallIntegrityPlugin(KEY)))
    paused = await send(source, "send zoë 2")
    copied = await service.create_session(app_name=APP, user_id=USER, session_id="s2")
    for event in (await stored(source)).events:
        restored = ToolCallIntegrityPlugin.prepare_restored_event(event)
        assert restored.custom_metadata == {RESTORED_EVENT_KEY: True}
        assert event.custom_metadata != restored.custom_metadata  # the original is untouched
        await service.append_event(copied, restored)
    runner = Runner(app=bank(ToolCallIntegrityPlugin(KEY)), session_service=service)
    with pytest.raises(PluginError) as raised:
        await send(runner, confirm(paused), session_id="s2")
    assert "restored history" in str(raised.value.__cause__)
    assert RUNS == []


async def test_an_event_repeating_a_call_id_is_refused_before_it_is_stored() -> None:
    twice = types.Content(
        role="model",
        parts=[function_call("transfer_money", ARGS, id="d1")] * 2,
    )
    model = ScriptedModel(replies=[twice])
    agent = LlmAgent(name="bank", model=model, tools=[transfer_money])
    service = InMemorySessionService()
    runner = await runner_on(
        service, App(name=APP, root_agent=agent, plugins=[ToolCallIntegrityPlugin(KEY)])
    )
    with pytest.raises(PluginError) as raised:
        await send(runner, "pay twice")
    assert "repeats function call ids ['d1']" in str(raised.value.__cause__)
    assert [e.author for e in (await stored(runner)).events] == ["user"]
    assert RUNS == []


async def test_a_tool_runs_only_with_its_stored_arguments() -> None:
    class Swap(BasePlugin):
        async def before_tool_callback(
            self, *, tool: Any, tool_args: Any, tool_context: Any
        ) -> None:
            tool_args["amount"] = 5000  # what would run is no longer the stored call

    model = ScriptedModel(replies=[function_call("transfer_money", ARGS, id="e1"), "done"])
    agent = LlmAgent(name="bank", model=model, tools=[transfer_money])
    app = App(name=APP, root_agent=agent, plugins=[Swap("swap"), ToolCallIntegrityPlugin(KEY)])
    runner = await runner_on(InMemorySessionService(), app)
    with pytest.raises(PluginError) as raised:
        await send(runner, "pay")
    assert "are not the stored call's" in str(raised.value.__cause__)
    assert RUNS == []


def test_a_key_must_be_non_empty_bytes() -> None:
    for bad in (b"", [], [b"ok", b""], "text"):
        with pytest.raises(ValueError, match="secret_key"):
            ToolCallIntegrityPlugin(bad)  # type: ignore[arg-type]


async def test_callers_cannot_set_the_runtimes_metadata_keys(
    session_service: BaseSessionService,
) -> None:
    seen: list[dict[str, Any]] = []

    def note(tool_context: Any) -> str:
        """Look at the invocation's metadata."""
        seen.append(dict(tool_context.custom_metadata))
        return "ok"

    model = ScriptedModel(replies=[function_call("note", {}, id="n1"), "done"])
    agent = LlmAgent(name="a", model=model, tools=[note])
    runner = await runner_on(session_service, App(name=APP, root_agent=agent))
    metadata = {"trace": "t1", STAMPS_KEY: {"n1": "v1:" + "0" * 64}, RESTORED_EVENT_KEY: True}
    events = await send(runner, "hi", run_config=RunConfig(custom_metadata=metadata))
    assert seen == [{"trace": "t1"}]
    for event in [*events, *(await stored(runner)).events]:
        assert event.custom_metadata == {"trace": "t1"}
    assert user("hi") == (await stored(runner)).events[0].content


class Guard(BasePlugin):
    async def on_user_message_callback(self, **_: Any) -> types.Content | None:
        raise InputValidationError("messages are closed today")


async def test_over_http_history_is_restored_and_the_runtimes_keys_stay_inside() -> None:
    service = InMemorySessionService()
    source = await runner_on(service, bank(ToolCallIntegrityPlugin(KEY)))
    paused = await send(source, "send zoë 2")
    history = [e.model_dump(mode="json", by_alias=True) for e in (await stored(source)).events]
    server = create_app(agent=bank(ToolCallIntegrityPlugin(KEY)), session_service=service)
    transport = httpx.ASGITransport(app=server)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        shown = (await http.get(f"/apps/{APP}/users/{USER}/sessions/s1")).json()
        # The stamps stay in the store; the API shows the events without them.
        assert [e.get("customMetadata") for e in shown["events"]] == [None] * len(history)
        created = await http.post(f"/apps/{APP}/users/{USER}/sessions", json={"events": history})
        assert created.status_code == 200, created.text
        assert all("customMetadata" not in e for e in created.json()["events"])
        copied = created.json()["id"]
        body = {"appName": APP, "userId": USER, "sessionId": copied}
        message = confirm(paused).model_dump(mode="json", by_alias=True, exclude_none=True)
        answered = await http.post("/run", json={**body, "newMessage": message})
    assert answered.status_code == 500
    assert "restored history" in answered.text
    assert RUNS == []
    restored = await service.get_session(app_name=APP, user_id=USER, session_id=copied)
    assert restored is not None
    assert all(e.custom_metadata == {RESTORED_EVENT_KEY: True} for e in restored.events[:-1])


async def test_a_plugin_refusing_input_is_a_422() -> None:
    app = App(name=APP, root_agent=LlmAgent(name="a", model=ScriptedModel(replies=[])))
    app.plugins.append(Guard("guard"))
    server = create_app(agent=app, session_service=InMemorySessionService())
    transport = httpx.ASGITransport(app=server)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        (await http.post(f"/apps/{APP}/users/{USER}/sessions/s1")).raise_for_status()
        body = {
            "appName": APP,
            "userId": USER,
            "sessionId": "s1",
            "newMessage": {"role": "user", "parts": [{"text": "hi"}]},
        }
        refused = await http.post("/run", json=body)
        assert refused.status_code == 422
        assert "messages are closed today" in refused.text
        shown = (await http.get(f"/apps/{APP}/users/{USER}/sessions/s1")).json()
    assert shown["events"] == []


async def test_stamps_are_interchangeable_with_google_adks() -> None:
    from google.adk.events import Event as AdkEvent
    from google.adk.plugins import ToolCallIntegrityPlugin as AdkPlugin
    from google.adk.sessions import Session as AdkSession

    call = function_call("transfer_money", ARGS, id="g1")
    theirs = AdkEvent(
        invocation_id="i1",
        author="bank",
        branch="b",
        content=types.Content(role="model", parts=[call]),
    )
    adk_session = AdkSession(id="s1", app_name=APP, user_id=USER)
    context = type("Ctx", (), {"session": adk_session})()
    await AdkPlugin(secret_key=KEY).on_event_callback(invocation_context=context, event=theirs)
    ours = Event.model_validate(theirs.model_dump(mode="json", exclude_none=True))
    session = Session(id="s1", app_name=APP, user_id=USER, events=[ours])
    ctx = type("Ctx", (), {"session": session})()
    plugin = ToolCallIntegrityPlugin(KEY)
    await plugin.before_run_callback(invocation_context=ctx)  # google-adk's stamp verifies here
    mine = ours.model_copy(update={"custom_metadata": None})
    await plugin.on_event_callback(invocation_context=ctx, event=mine)
    assert mine.custom_metadata == theirs.custom_metadata  # and ours is the same stamp
    forged = ours.model_copy(deep=True)
    forged_call = forged.get_function_calls()[0]
    assert forged_call.args is not None
    forged_call.args["amount"] = 3.0
    tampered = type("Ctx", (), {"session": session.model_copy(update={"events": [forged]})})()
    with pytest.raises(ToolCallIntegrityError):
        await plugin.before_run_callback(invocation_context=tampered)


class Crash(BaseException):
    """What a process being killed leaves: nothing catches it."""


@pytest.mark.parametrize("tampered", [False, True])
async def test_a_call_left_by_a_crash_is_rerun_only_as_stamped(
    session_service: BaseSessionService, tampered: bool
) -> None:
    attempts: list[float] = []

    def pay(amount: float) -> dict[str, Any]:
        """Pay an amount."""
        attempts.append(amount)
        if len(attempts) == 1:
            raise Crash  # the process dies inside the tool: the call stays unanswered
        return {"paid": amount}

    def app(resumed: bool) -> App:
        replies: list[Any] = ["paid"] if resumed else [function_call("pay", {"amount": 7}, id="p1")]
        agent = LlmAgent(name="bank", model=ScriptedModel(replies=replies), tools=[pay])
        return App(name=APP, root_agent=agent, plugins=[ToolCallIntegrityPlugin(KEY)])

    runner = await runner_on(session_service, app(resumed=False))
    with pytest.raises(Crash):
        await send(runner, "pay 7")
    [crashed] = await session_service.list_interrupted_invocations(app_name=APP)
    session = await stored(runner)
    if tampered:
        position = position_of_call(session.events, "pay")
        data = json.loads(session.events[position].model_dump_json(by_alias=True))
        data["content"]["parts"][0]["functionCall"]["args"]["amount"] = 5000
        await overwrite_stored_event(session_service, (APP, USER, "s1"), position, json.dumps(data))
    async with twin(session_service) as replica:
        resumed = Runner(app=app(resumed=True), session_service=replica)
        run = resumed.run_async(user_id=USER, session_id="s1", invocation_id=crashed.invocation_id)
        if tampered:
            with pytest.raises(PluginError) as raised:
                _ = [event async for event in run]
            assert isinstance(raised.value.__cause__, ToolCallIntegrityError)
            assert attempts == [7]  # the changed call never ran
        else:
            events = [event async for event in run]
            assert attempts == [7, 7]
            assert texts(events) == ["paid"]
