"""google-adk 2's Event surface: constructor shortcuts, ``message``, ``NodeInfo``, stored form."""

from __future__ import annotations

import copy
import json

import pytest
from google.genai import types

from adk_runtime.events import Event, EventActions, event_from_stored, event_to_json
from adk_runtime.events.event import NodeInfo


def _text(event: Event) -> str:
    assert event.content is not None
    return "".join(part.text or "" for part in event.content.parts or [])


@pytest.mark.parametrize(
    ("message", "role", "text"),
    [
        ("hi", "user", "hi"),
        (types.Part(text="hi"), "user", "hi"),
        ([types.Part(text="h"), "i"], "user", "hi"),
        ({"role": "model", "parts": [{"text": "hi"}]}, "model", "hi"),
    ],
    ids=["str", "part", "list", "dict"],
)
def test_message_becomes_the_content(message: object, role: str, text: str) -> None:
    event = Event(author="a", message=message)
    assert event.content is not None
    assert event.content.role == role
    assert _text(event) == text
    assert event.message is event.content


def test_a_lone_function_call_part_is_a_model_message() -> None:
    part = types.Part(function_call=types.FunctionCall(name="f", args={}))
    event = Event(message=part)
    assert event.content is not None
    assert event.content.role == "model"
    assert [call.name for call in event.get_function_calls()] == ["f"]


def test_a_content_message_is_kept_as_is() -> None:
    content = types.Content(role="model", parts=[types.Part(text="x")])
    assert Event(message=content).content is content


def test_message_and_content_together_are_refused() -> None:
    with pytest.raises(ValueError, match="message or content"):
        Event(message="a", content=types.Content(parts=[types.Part(text="b")]))


def test_a_message_of_another_type_is_refused() -> None:
    with pytest.raises(TypeError, match="not int"):
        Event(message=3)


def test_the_message_setter_converts_and_clears() -> None:
    event = Event(author="a")
    assert event.message is None
    event.message = "later"
    assert _text(event) == "later"
    event.message = None
    assert event.content is None


def test_state_route_and_node_path_reach_their_fields_without_touching_the_input() -> None:
    data = {"message": "m", "state": {"k": 1}, "route": ["a", 2], "node_path": "wf@1/n@2"}
    original = copy.deepcopy(data)
    event = Event.model_validate(data)
    assert data == original
    assert event.actions.state_delta == {"k": 1}
    assert event.actions.route == ["a", 2]
    assert event.node_info.path == "wf@1/n@2"
    assert event.node_info.run_id == "2"


def test_shortcuts_keep_the_other_fields_of_given_actions_and_node_info() -> None:
    event = Event(
        actions=EventActions(escalate=True, artifact_delta={"f": 1}),
        node_info=NodeInfo(path="old", output_for=["wf"]),
        state={"k": "v"},
        route=True,
        node_path="new",
    )
    assert event.actions.escalate is True
    assert event.actions.artifact_delta == {"f": 1}
    assert event.actions.state_delta == {"k": "v"}
    assert event.actions.route is True
    assert event.node_info.path == "new"
    assert event.node_info.output_for == ["wf"]


def test_a_subclass_field_named_message_is_a_field() -> None:
    with pytest.warns(UserWarning, match="shadows"):

        class Note(Event):
            message: str = ""

    note = Note(author="a", message="hello")
    assert note.message == "hello"
    assert note.content is None
    note.message = "changed"
    assert note.model_dump()["message"] == "changed"


@pytest.mark.parametrize(
    ("path", "name", "run_id", "parent_run_id"),
    [
        ("", "", "", None),
        ("node", "node", "", None),
        ("node@3", "node", "3", None),
        ("wf@1/node@2", "node", "2", "1"),
        ("wf/node@2", "node", "2", None),
        ("wf@1/mid@4/node", "node", "", "4"),
    ],
)
def test_node_info_reads_name_and_run_ids_from_the_path(
    path: str, name: str, run_id: str, parent_run_id: str | None
) -> None:
    info = NodeInfo(path=path)
    assert (info.name, info.run_id, info.parent_run_id) == (name, run_id, parent_run_id)


def test_node_name_is_empty_on_an_agent_state_event() -> None:
    assert Event(node_path="wf@1/step@2").node_name == "step"
    state_event = Event(node_path="wf@1/step@2", actions=EventActions(end_of_agent=True))
    assert state_event.node_name == ""


def test_stored_form_is_camel_case_with_node_info_and_sorted_ids() -> None:
    event = Event(
        invocation_id="i",
        node_info=NodeInfo(path="a/b", output_for=["a"], message_as_output=True),
        long_running_tool_ids={"c3", "a1", "b2"},
        route="next",
    )
    data = json.loads(event_to_json(event))
    assert data["nodeInfo"] == {"path": "a/b", "outputFor": ["a"], "messageAsOutput": True}
    assert data["actions"]["route"] == "next"
    assert data["longRunningToolIds"] == ["a1", "b2", "c3"]
    back = event_from_stored(event_to_json(event), "s", 1)
    assert back == event


@pytest.mark.parametrize(
    ("node", "stored"),
    [
        (NodeInfo(), None),
        (NodeInfo(output_for=["wf@1"]), {"path": "", "outputFor": ["wf@1"]}),
        (NodeInfo(message_as_output=False), {"path": "", "messageAsOutput": False}),
    ],
)
def test_node_info_is_stored_only_when_set(node: NodeInfo, stored: object) -> None:
    event = Event(invocation_id="i", author="agent", node_info=node)
    data = json.loads(event_to_json(event))
    assert data.get("nodeInfo") == stored
    assert event.model_dump()["node_info"] == node.model_dump()  # the model keeps it
    assert event_from_stored(event_to_json(event), "s", 1) == event


def test_an_event_stored_before_node_info_existed_reads_back() -> None:
    old = json.dumps({"id": "e1", "author": "agent", "invocationId": "i", "timestamp": 1.5})
    event = event_from_stored(old, "s", 1)
    assert event.node_info == NodeInfo()
    assert event.actions.route is None
    assert event.logprobs_result is None


def test_route_counts_as_an_action_and_merges() -> None:
    actions = EventActions()
    assert actions.is_empty()
    actions.merge(EventActions(route=0))
    assert actions.route == 0
    assert not actions.is_empty()


def test_an_error_event_is_final_unless_it_calls_a_function() -> None:
    assert Event(error_code="SAFETY").is_final_response()
    response = types.Part(function_response=types.FunctionResponse(name="f", response={}))
    assert Event(error_code="E", message=[response]).is_final_response()
    call = types.Part(function_call=types.FunctionCall(name="f", args={}))
    assert not Event(error_code="E", message=call).is_final_response()
    assert not Event(error_code="E", partial=True).is_final_response()
