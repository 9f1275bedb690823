"""Workflow checkpoints: google-adk's state models, and the older index form still read."""

from __future__ import annotations

import logging

import pydantic
import pytest

from adk_runtime.agents import LlmAgent, SequentialAgent
from adk_runtime.agents._resume import sub_agent_index
from adk_runtime.agents.loop_agent import LoopAgentState
from adk_runtime.agents.sequential_agent import SequentialAgentState
from adk_runtime.core.base_agent import BaseAgentState


def _pipeline() -> SequentialAgent:
    return SequentialAgent(
        name="p", sub_agents=[LlmAgent(name=n, model="m") for n in ("a", "b", "c")]
    )


@pytest.mark.parametrize(
    ("state", "index"),
    [
        ({"current_sub_agent": "c"}, 2),  # google-adk's form, written by both runtimes
        ({"current_sub_agent": ""}, 0),
        ({"next": 1}, 1),  # checkpoints written by adk_runtime before it used names
        ({"iteration": 3, "next": 2}, 2),
        ({}, 0),
    ],
)
def test_the_sub_agent_to_run_next(state: dict[str, object], index: int) -> None:
    assert sub_agent_index(_pipeline(), state) == index


def test_a_name_no_longer_in_the_tree_starts_over_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING):
        assert sub_agent_index(_pipeline(), {"current_sub_agent": "gone"}) == 0
    assert "'gone'" in caplog.text


def test_the_state_models_are_strict_and_dump_google_adks_fields() -> None:
    assert LoopAgentState(current_sub_agent="a", times_looped=2).model_dump() == {
        "current_sub_agent": "a",
        "times_looped": 2,
    }
    assert SequentialAgentState().model_dump() == {"current_sub_agent": ""}
    assert issubclass(LoopAgentState, BaseAgentState)
    with pytest.raises(pydantic.ValidationError, match="unknown"):
        SequentialAgentState.model_validate({"current_sub_agent": "a", "unknown": 1})
