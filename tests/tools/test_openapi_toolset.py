"""OpenAPIToolset against a real REST API (FastAPI under uvicorn on a loopback port)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import yaml
from fastapi.openapi.models import APIKey, APIKeyIn

from adk_runtime.agents import LlmAgent
from adk_runtime.auth.auth_credential import AuthCredential, AuthCredentialTypes
from adk_runtime.errors import ConfigurationError
from adk_runtime.sessions import InMemorySessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools.openapi_tool import OpenAPIToolset, RestApiTool
from adk_runtime.tools.openapi_tool.openapi_spec_parser.rest_api_tool import MAX_RESPONSE_CHARS
from tests.llm.helpers import send, start
from tests.serving import free_port, running_process


@pytest.fixture(scope="module")
def api() -> Iterator[str]:
    port = free_port()
    command = [
        sys.executable, "-m", "uvicorn", "tests.tools.openapi_api:app",
        "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning",
    ]  # fmt: skip
    with running_process(command, port, "/openapi.json") as base:
        yield base


@pytest.fixture
def spec(api: str) -> dict[str, Any]:
    document: dict[str, Any] = httpx.get(f"{api}/openapi.json").json()
    document["servers"] = [{"url": api}]
    return document


def toolset(spec: dict[str, Any], **options: Any) -> OpenAPIToolset:
    return OpenAPIToolset(spec_dict=spec, allow_private_network_access=True, **options)


async def call(tools: OpenAPIToolset, *calls: Any) -> list[Any]:
    """Run an agent whose model makes ``calls`` at once; the responses, in order."""
    model = ScriptedModel(replies=[list(calls), "done"])
    runner = await start(LlmAgent(name="a", model=model, tools=[tools]), InMemorySessionService())
    events = await send(runner, "go")
    return [r.response for e in events for r in e.get_function_responses()]


async def test_each_operation_is_a_tool_with_its_parameters(spec: dict[str, Any]) -> None:
    tools = await toolset(spec).get_tools()
    assert [t.name for t in tools] == [
        "list_pets", "create_pet", "get_pet", "get_secret", "get_query_secret", "echo_trace",
        "big_text",
    ]  # fmt: skip
    get_pet = toolset(spec).get_tool("get_pet")
    assert isinstance(get_pet, RestApiTool)
    declaration = get_pet._get_declaration()
    assert declaration is not None
    assert declaration.description == "One pet."
    schema = declaration.parameters_json_schema
    assert isinstance(schema, dict)
    assert schema["required"] == ["pet_id"]
    assert schema["properties"]["pet_id"]["type"] == "integer"
    create = toolset(spec).get_tool("create_pet")
    assert create is not None
    body = create._get_declaration()
    assert body is not None
    assert isinstance(body.parameters_json_schema, dict)
    assert set(body.parameters_json_schema["properties"]) == {"name", "kind"}


async def test_an_agent_calls_the_api(spec: dict[str, Any]) -> None:
    listed, one, created, missing, absent = await call(
        toolset(spec),
        function_call("list_pets", {"limit": 5, "kinds": ["dog"]}),
        function_call("get_pet", {"pet_id": 1}),
        function_call("create_pet", {"name": "Kit", "kind": "cat"}),
        function_call("get_pet", {"pet_id": 999}),
        function_call("get_pet", {}),
    )
    assert listed == {"result": [{"id": 2, "name": "Rex", "kind": "dog"}]}
    assert one == {"id": 1, "name": "Tom", "kind": "cat"}
    assert created["name"] == "Kit"
    assert "HTTP 404" in missing["error"]
    assert "no pet 999" in missing["error"]
    assert "needs the arguments ['pet_id']" in absent["error"]


async def test_a_private_host_is_refused_unless_allowed(spec: dict[str, Any]) -> None:
    (refused,) = await call(OpenAPIToolset(spec_dict=spec), function_call("get_pet", {"pet_id": 1}))
    assert "private network" in refused["error"]
    assert "allow_private_network_access" in refused["error"]


async def test_an_api_key_and_provided_headers_are_sent(spec: dict[str, Any]) -> None:
    scheme = APIKey(**{"in": APIKeyIn.header}, name="X-Api-Key")
    credential = AuthCredential(auth_type=AuthCredentialTypes.API_KEY, api_key="k1")
    keyed = toolset(
        spec,
        auth_scheme=scheme,
        auth_credential=credential,
        header_provider=lambda context: {"X-Trace": f"t-{context.invocation_id[:2]}"},
    )
    secret, traced = await call(
        keyed, function_call("get_secret", {}), function_call("echo_trace", {})
    )
    assert secret == {"secret": "42"}
    assert traced["trace"].startswith("t-")
    (unkeyed,) = await call(toolset(spec), function_call("get_secret", {}))
    assert "HTTP 401" in unkeyed["error"]
    in_query = toolset(
        spec,
        auth_scheme=APIKey(**{"in": APIKeyIn.query}, name="key"),
        auth_credential=AuthCredential(auth_type=AuthCredentialTypes.API_KEY, api_key="k2"),
    )
    (queried,) = await call(in_query, function_call("get_query_secret", {}))
    assert queried == {"secret": "43"}


async def test_a_long_answer_is_cut(spec: dict[str, Any]) -> None:
    (big,) = await call(toolset(spec), function_call("big_text", {}))
    assert len(big["text"]) < MAX_RESPONSE_CHARS + 100
    assert big["text"].endswith("[cut: 150000 characters in all]")


def test_yaml_references_and_bad_documents() -> None:
    document = {
        "openapi": "3.0.3",
        "servers": [
            {"url": "https://{region}.example.com/v1", "variables": {"region": {"default": "eu"}}}
        ],
        "paths": {
            "/nodes/{id}": {
                "parameters": [{"name": "id", "in": "path", "schema": {"type": "string"}}],
                "put": {
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Node"}}
                        },
                    },
                },
            }
        },
        "components": {
            "schemas": {
                "Node": {
                    "type": "object",
                    "required": ["id"],
                    "properties": {
                        "id": {"type": "string"},
                        "child": {"$ref": "#/components/schemas/Node"},
                    },
                }
            }
        },
    }
    tools = OpenAPIToolset(spec_str=yaml.safe_dump(document), spec_str_type="yaml")
    (tool,) = tools._tools
    assert tool.name == "put_nodes_id"
    assert tool.endpoint.base_url == "https://eu.example.com/v1"
    declaration = tool._get_declaration()
    assert declaration is not None
    schema = declaration.parameters_json_schema
    assert isinstance(schema, dict)
    assert set(schema["properties"]) == {"id_path", "id_body", "child"}  # clashing names told apart
    assert schema["properties"]["child"] == {"type": "object"}  # Node inside Node: cut
    for bad, message in [
        ({"swagger": "2.0"}, "not an OpenAPI 3"),
        ({**document, "servers": []}, "no absolute server URL"),
        (
            {
                **document,
                "paths": {"/x": {"get": {"parameters": [{"$ref": "https://evil/p.json"}]}}},
            },
            "inside the document",
        ),
    ]:
        with pytest.raises(ConfigurationError, match=message):
            OpenAPIToolset(spec_dict=bad)
    with pytest.raises(ConfigurationError, match="not valid json"):
        OpenAPIToolset(spec_str="{nope", spec_str_type="json")
    with pytest.raises(ConfigurationError, match="one of them"):
        OpenAPIToolset(spec_dict=document, spec_str=json.dumps(document))
