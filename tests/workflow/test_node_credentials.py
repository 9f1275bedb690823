"""A function node's ``auth_config``, and agent nodes whose tools ask for a confirmation or a
credential: the user's answer continues the workflow, on every backend and any replica."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.openapi.models import APIKey, APIKeyIn
from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.auth import AuthConfig, AuthCredential, AuthCredentialTypes, auth_handler
from adk_runtime.errors import InputValidationError
from adk_runtime.events import Event
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing.scripted_model import ScriptedModel, function_call
from adk_runtime.tools import FunctionTool, ToolContext
from adk_runtime.workflow import (
    START,
    FunctionNode,
    NodeContext,
    Workflow,
    WorkflowConfigurationError,
    node,
)
from tests.auth.helpers import CLIENT_ID, CLIENT_SECRET, code_scheme, oauth2_credential
from tests.auth.oauth_server import OAuthServer, running_oauth_server
from tests.workflow.helpers import Run, message, outputs

KEY_SCHEME = APIKey(**{"in": APIKeyIn.header, "name": "X-Api-Key"})  # pyright: ignore[reportArgumentType]


def _key_config(credential_key: str = "weather_key") -> AuthConfig:
    return AuthConfig(
        auth_scheme=KEY_SCHEME,
        raw_auth_credential=AuthCredential(
            auth_type=AuthCredentialTypes.API_KEY, api_key="placeholder"
        ),
        credential_key=credential_key,
    )


def _calls(events: list[Event], name: str) -> list[types.FunctionCall]:
    return [call for event in events for call in event.get_function_calls() if call.name == name]


def _response(call: types.FunctionCall, response: dict[str, Any]) -> types.Content:
    answer = types.FunctionResponse(id=call.id, name=call.name, response=response)
    return types.Content(role="user", parts=[types.Part(function_response=answer)])


def _key_answer(config: AuthConfig, key: str) -> dict[str, Any]:
    answer = AuthConfig(
        auth_scheme=config.auth_scheme,
        credential_key=config.credential_key,
        exchanged_auth_credential=AuthCredential(
            auth_type=AuthCredentialTypes.API_KEY, api_key=key
        ),
    )
    return answer.model_dump(mode="json", by_alias=True, exclude_none=True)


def _two_keyed_nodes(config: AuthConfig, seen: list[tuple[str, str | None]]) -> Workflow:
    @node(auth_config=config)
    def forecast(ctx: NodeContext) -> dict[str, str]:
        credential = ctx.get_auth_response(config)
        seen.append(("forecast", credential.api_key if credential else None))
        return {"sky": "clear"}

    @node(auth_config=config)
    def alerts(ctx: NodeContext, node_input: dict[str, str]) -> str:
        credential = ctx.get_auth_response(config)
        seen.append(("alerts", credential.api_key if credential else None))
        return f"no alerts, {node_input['sky']}"

    return Workflow(name="weather", edges=[(START, forecast, alerts)])


class _Asked:
    """The two keyed nodes' workflow, run until its first node asked for the key."""

    def __init__(self, session_service: BaseSessionService) -> None:
        self.config = _key_config()
        self.seen: list[tuple[str, str | None]] = []
        self.run = Run(session_service, _two_keyed_nodes(self.config, self.seen))

    async def start(self) -> tuple[list[Event], types.FunctionCall]:
        await self.run.start()
        first = await self.run.send(message("weather?"))
        [request] = _calls(first, "adk_request_credential")
        return first, request


async def test_a_node_asks_for_its_credential_and_runs_once_answered_on_another_replica(
    session_service: BaseSessionService,
) -> None:
    asked = _Asked(session_service)
    config, seen, run = asked.config, asked.seen, asked.run
    first, request = await asked.start()

    assert request.id == "wf_auth:weather@1/forecast@1"
    args = request.args or {}
    assert args["functionCallId"] == request.id
    assert args["authConfig"]["credentialKey"] == "weather_key"
    assert "placeholder" not in str(args)  # the node's own key never goes to the client
    assert "X-Api-Key" in args["message"]
    assert seen == []
    assert first[-1].long_running_tool_ids == {request.id}

    replica = run.replica(_two_keyed_nodes(config, seen))
    events = await replica.send(
        _response(request, _key_answer(config, "real-key-1")), invocation_id=first[0].invocation_id
    )

    # the second node needs the same credential: it has it, and does not ask
    assert seen == [("forecast", "real-key-1"), ("alerts", "real-key-1")]
    assert outputs(events)["weather@1/alerts@1"] == "no alerts, clear"
    assert _calls(events, "adk_request_credential") == []
    session = await run.session()
    assert not any("weather_key" in key for key in session.state)  # never in stored state


async def test_a_bare_key_answers_and_a_credential_already_got_is_not_asked_for_again(
    session_service: BaseSessionService,
) -> None:
    asked = _Asked(session_service)
    seen, run = asked.seen, asked.run
    first, request = await asked.start()

    await run.send(_response(request, {"result": "bare-key"}), invocation_id=first[0].invocation_id)

    assert seen == [("forecast", "bare-key"), ("alerts", "bare-key")]


async def test_an_answer_without_a_credential_is_refused_and_nothing_is_stored(
    session_service: BaseSessionService,
) -> None:
    asked = _Asked(session_service)
    seen, run = asked.seen, asked.run
    first, request = await asked.start()
    stored = len((await run.session()).events)

    with pytest.raises(InputValidationError, match="carries no credential"):
        await run.send(
            _response(request, {"nothing": "here"}), invocation_id=first[0].invocation_id
        )

    assert len((await run.session()).events) == stored
    await run.send(_response(request, {"result": "k2"}), invocation_id=first[0].invocation_id)
    assert seen == [("forecast", "k2"), ("alerts", "k2")]


async def test_a_node_of_a_nested_workflow_asks_and_a_confirmation_cannot_answer_it(
    session_service: BaseSessionService,
) -> None:
    config = _key_config()

    @node(auth_config=config)
    def fetch(ctx: NodeContext) -> str | None:
        credential = ctx.get_auth_response(config)
        return credential.api_key if credential else None

    inner = Workflow(name="inner", edges=[(START, fetch)])
    run = await Run(session_service, Workflow(name="outer", edges=[(START, inner)])).start()
    first = await run.send(message("go"))
    [request] = _calls(first, "adk_request_credential")
    assert request.id == "wf_auth:outer@1/inner@1/fetch@1"
    stored = len((await run.session()).events)
    wrong = types.FunctionResponse(
        id=request.id, name="adk_request_confirmation", response={"confirmed": True}
    )

    with pytest.raises(InputValidationError, match="give it that name"):
        await run.send(
            types.Content(role="user", parts=[types.Part(function_response=wrong)]),
            invocation_id=first[0].invocation_id,
        )
    assert len((await run.session()).events) == stored

    events = await run.send(
        _response(request, {"result": "k4"}), invocation_id=first[0].invocation_id
    )
    assert outputs(events)["outer@1/inner@1/fetch@1"] == "k4"


async def test_a_restart_after_the_answer_keeps_the_credential_from_the_log(
    session_service: BaseSessionService,
) -> None:
    """The credential is kept in memory only: the process dies after the answer is stored,
    and the resumed invocation takes it again from the stored answer."""

    class _Died(Exception):
        pass

    config = _key_config()
    seen: list[tuple[str, str | None]] = []
    attempts: list[int] = []

    @node(auth_config=config)
    def forecast(ctx: NodeContext) -> str:
        attempts.append(1)
        if len(attempts) == 1:
            raise _Died
        credential = ctx.get_auth_response(config)
        seen.append(("forecast", credential.api_key if credential else None))
        return "clear"

    workflow = Workflow(name="weather", edges=[(START, forecast)])
    run = await Run(session_service, workflow).start()
    first = await run.send(message("weather?"))
    [request] = _calls(first, "adk_request_credential")
    with pytest.raises(_Died):
        await run.send(_response(request, {"result": "k3"}), invocation_id=first[0].invocation_id)

    replica = run.replica(Workflow(name="weather", edges=[(START, forecast)]))
    resumed = await replica.send(invocation_id=first[0].invocation_id)

    assert seen == [("forecast", "k3")]
    assert outputs(resumed)["weather@1/forecast@1"] == "clear"


@pytest.fixture
def oauth_server() -> Iterator[OAuthServer]:
    with running_oauth_server(clients={CLIENT_ID: CLIENT_SECRET}) as server:
        yield server


def _oauth_answer(request: types.FunctionCall, redirect: str) -> dict[str, Any]:
    config = dict((request.args or {})["authConfig"])
    exchanged = dict(config["exchangedAuthCredential"])
    exchanged["oauth2"] = {**exchanged["oauth2"], "authResponseUri": redirect}
    return {**config, "exchangedAuthCredential": exchanged}


async def test_an_oauth2_node_signs_in_and_a_refused_code_makes_it_ask_again(
    session_service: BaseSessionService, oauth_server: OAuthServer
) -> None:
    config = AuthConfig(
        auth_scheme=code_scheme(oauth_server),
        raw_auth_credential=oauth2_credential(redirect_uri="http://127.0.0.1/callback"),
    )
    tokens: list[str | None] = []

    @node(auth_config=config)
    def profile(ctx: NodeContext) -> str:
        credential = ctx.get_auth_response(config)
        token = credential.oauth2.access_token if credential and credential.oauth2 else None
        tokens.append(token)
        return "profile read"

    def workflow() -> Workflow:
        return Workflow(name="account", edges=[(START, profile)])

    run = await Run(session_service, workflow()).start()
    first = await run.send(message("my profile"))
    [request] = _calls(first, "adk_request_credential")
    assert CLIENT_SECRET not in str(request.args)
    auth_uri = request.args["authConfig"]["exchangedAuthCredential"]["oauth2"]["authUri"]  # type: ignore[index]
    redirect = oauth_server.sign_in(auth_uri)
    invocation_id = first[0].invocation_id

    # a forged state is refused before anything is stored
    forged = redirect.replace("state=", "state=forged")
    with pytest.raises(InputValidationError, match="state"):
        await run.send(
            _response(request, _oauth_answer(request, forged)), invocation_id=invocation_id
        )

    # a code the server refuses: the node asks again, with a new sign-in
    spent = redirect.replace("code=", "code=spent")
    again = await run.send(
        _response(request, _oauth_answer(request, spent)), invocation_id=invocation_id
    )
    [second] = _calls(again, "adk_request_credential")
    assert second.id == "wf_auth:account@1/profile@1:2"
    assert tokens == []

    # the real code, answered on another replica (whose node holds the client secret too):
    # this process forgets every secret it remembered from issuing the requests
    auth_handler._SECRETS.clear()  # pyright: ignore[reportPrivateUsage]
    second_uri = second.args["authConfig"]["exchangedAuthCredential"]["oauth2"]["authUri"]  # type: ignore[index]
    replica = run.replica(workflow())
    done = await replica.send(
        _response(second, _oauth_answer(second, oauth_server.sign_in(second_uri))),
        invocation_id=invocation_id,
    )

    assert outputs(done)["account@1/profile@1"] == "profile read"
    [token] = tokens
    assert token is not None
    assert oauth_server.token_info(token) is not None


def test_auth_config_needs_a_function_node_that_runs_again() -> None:
    config = _key_config()

    def act() -> None:
        return None

    with pytest.raises(WorkflowConfigurationError, match="rerun_on_resume=True"):
        FunctionNode(act, auth_config=config)
    assert FunctionNode(act, auth_config=config, rerun_on_resume=True).auth_config is config
    assert node(act, auth_config=config).rerun_on_resume is True
    as_dict = config.model_dump(by_alias=True, exclude_none=True)
    assert isinstance(node(act, auth_config=as_dict).auth_config, AuthConfig)  # type: ignore[arg-type]
    with pytest.raises(WorkflowConfigurationError, match="function nodes"):
        node(LlmAgent(name="a", model=ScriptedModel(replies=[])), auth_config=config)
    with pytest.raises(WorkflowConfigurationError, match="not an AuthConfig"):
        node(act, auth_config={"nothing": 1})  # type: ignore[arg-type]


# --- agent nodes whose tools ask ---------------------------------------------------------


def _deploy() -> dict[str, str]:
    return {"result": "deployed"}


def _confirming_workflow(*replies: Any) -> tuple[Workflow, ScriptedModel]:
    model = ScriptedModel(replies=list(replies) or [function_call("_deploy", {}), "Deployed."])
    agent = LlmAgent(
        name="ops", model=model, tools=[FunctionTool(_deploy, require_confirmation=True)]
    )
    return Workflow(name="release", edges=[(START, agent)]), model


@pytest.mark.parametrize("confirmed", [True, False])
async def test_an_agent_nodes_tool_confirmation_is_answered_on_another_replica(
    session_service: BaseSessionService, confirmed: bool
) -> None:
    workflow, _ = _confirming_workflow()
    run = await Run(session_service, workflow).start()
    first = await run.send(message("ship it"))
    [request] = _calls(first, "adk_request_confirmation")

    replica_workflow, model = _confirming_workflow("Deployed.")  # the replica's model
    replica = run.replica(replica_workflow)
    events = await replica.send(
        _response(request, {"confirmed": confirmed}), invocation_id=first[0].invocation_id
    )

    [result] = [
        response.response
        for event in events
        for response in event.get_function_responses()
        if response.name == "_deploy"
    ]
    assert (result == {"result": "deployed"}) is confirmed
    assert outputs(events)["release@1/ops@1"] == "Deployed."
    assert len(model.requests) == 1  # the model is called once more, after the tool


async def test_a_malformed_confirmation_to_an_agent_node_is_refused_before_it_is_stored(
    session_service: BaseSessionService,
) -> None:
    workflow, _ = _confirming_workflow()
    run = await Run(session_service, workflow).start()
    first = await run.send(message("ship it"))
    [request] = _calls(first, "adk_request_confirmation")
    stored = len((await run.session()).events)
    bad = types.FunctionResponse(
        id=request.id, name=request.name, response={"confirmed": {"maybe": 1}}
    )

    with pytest.raises(InputValidationError, match="ToolConfirmation"):
        await run.send(
            types.Content(role="user", parts=[types.Part(function_response=bad)]),
            invocation_id=first[0].invocation_id,
        )
    assert len((await run.session()).events) == stored


async def test_an_agent_nodes_tool_gets_its_credential(
    session_service: BaseSessionService,
) -> None:
    config = _key_config("ledger_key")
    used: list[str | None] = []

    def balance(tool_context: ToolContext) -> dict[str, Any]:
        credential = tool_context.get_auth_response(config)
        if credential is None:
            tool_context.request_credential(config)
            return {"pending": True}
        used.append(credential.api_key)
        return {"balance": 42}

    def workflow(*replies: Any) -> Workflow:
        model = ScriptedModel(replies=list(replies) or [function_call("balance", {}), "x"])
        agent = LlmAgent(name="teller", model=model, tools=[balance])
        return Workflow(name="bank", edges=[(START, agent)])

    run = await Run(session_service, workflow()).start()
    first = await run.send(message("balance?"))
    [request] = _calls(first, "adk_request_credential")

    replica = run.replica(workflow("You have 42."))
    events = await replica.send(
        _response(request, _key_answer(config, "ledger-secret")),
        invocation_id=first[0].invocation_id,
    )

    assert used == ["ledger-secret"]
    assert "ledger-secret" not in str(outputs(events))


async def test_an_agent_a_function_node_runs_gets_its_confirmation_checked_by_name(
    session_service: BaseSessionService,
) -> None:
    """An agent that only a function node's code runs (``ctx.run_node``) is not in the
    graph: its answers are checked against its stored requests by its name."""

    def workflow() -> Workflow:
        model = ScriptedModel(replies=[function_call("_deploy", {}), "Done."])
        agent = LlmAgent(
            name="ops", model=model, tools=[FunctionTool(_deploy, require_confirmation=True)]
        )

        @node
        async def plan(ctx: NodeContext, node_input: Any) -> Any:
            return await ctx.run_node(agent, node_input)

        return Workflow(name="release", edges=[(START, plan)])

    run = await Run(session_service, workflow()).start()
    first = await run.send(message("ship it"))
    [request] = _calls(first, "adk_request_confirmation")
    invocation_id = first[0].invocation_id
    unknown = types.FunctionResponse(
        id="adk-unknown", name="adk_request_confirmation", response={"confirmed": True}
    )
    with pytest.raises(InputValidationError):
        await run.send(
            types.Content(role="user", parts=[types.Part(function_response=unknown)]),
            invocation_id=invocation_id,
        )

    events = await run.send(_response(request, {"confirmed": True}), invocation_id=invocation_id)

    assert outputs(events)["release@1/plan@1"] == "Done."


@pytest.mark.parametrize("name", ["adk_request_input", "adk_request_confirmation", "fetch"])
async def test_an_answer_under_another_name_is_refused_and_nothing_is_stored(
    session_service: BaseSessionService, name: str
) -> None:
    """Found while checking the new requests: a key sent as an ``adk_request_input`` answer
    escaped the credential checks made before storing, and the redaction of its secret."""
    asked = _Asked(session_service)
    first, request = await asked.start()
    stored = len((await asked.run.session()).events)
    wrong = types.FunctionResponse(id=request.id, name=name, response={"result": "KEY-9"})

    with pytest.raises(InputValidationError, match="give it that name"):
        await asked.run.send(
            types.Content(role="user", parts=[types.Part(function_response=wrong)]),
            invocation_id=first[0].invocation_id,
        )

    assert len((await asked.run.session()).events) == stored
    assert asked.seen == []


async def test_a_node_question_answered_under_another_name_is_stored_under_its_calls(
    session_service: BaseSessionService,
) -> None:
    """A question (``adk_request_input``) is answered by id, as in google-adk; the answer is
    stored under the call's name (a model shown the pair sees one name), the caller's
    message left as it was. A credential or confirmation answer stays refused (above)."""
    from adk_runtime.events import RequestInput

    async def ask(node_input: Any) -> Any:
        yield RequestInput(interrupt_id="size", message="Which size?")

    run = await Run(session_service, Workflow(name="shop", edges=[(START, ask)])).start()
    first = await run.send(message("a shirt"))
    other = types.FunctionResponse(id="size", name="ask", response={"result": "M"})
    sent = types.Content(role="user", parts=[types.Part(function_response=other)])

    events = await run.send(sent, invocation_id=first[0].invocation_id)

    assert outputs(events)["shop@1/ask@1"] == "M"
    assert other.name == "ask"  # the caller's message is not changed
    [stored] = [
        r
        for e in (await run.session()).events
        for r in e.get_function_responses()
        if r.id == "size"
    ]
    assert stored.name == "adk_request_input"


async def test_an_agents_credential_request_answered_under_another_name_is_refused(
    session_service: BaseSessionService,
) -> None:
    """The same rule for an agent at the root (not a workflow)."""
    from adk_runtime.runners import Runner

    config = _key_config("root_key")

    def balance(tool_context: ToolContext) -> dict[str, Any]:
        if tool_context.get_auth_response(config) is None:
            tool_context.request_credential(config)
            return {"pending": True}
        return {"balance": 1}

    model = ScriptedModel(replies=[function_call("balance", {}), "ok"])
    runner = Runner(
        app_name="bank",
        agent=LlmAgent(name="teller", model=model, tools=[balance]),
        session_service=session_service,
    )
    await session_service.create_session(app_name="bank", user_id="u", session_id="s1")

    async def send(content: types.Content) -> list[Event]:
        return [
            e async for e in runner.run_async(user_id="u", session_id="s1", new_message=content)
        ]

    first = await send(message("balance?"))
    [request] = _calls(first, "adk_request_credential")
    wrong = types.FunctionResponse(id=request.id, name="balance", response={"result": "K"})

    with pytest.raises(InputValidationError, match="give it that name"):
        await send(types.Content(role="user", parts=[types.Part(function_response=wrong)]))
