"""Names kept for google-adk code that imports them: the Live API refuses clearly when used."""

from __future__ import annotations

import pytest

from adk_runtime.agents import LiveRequest, LiveRequestQueue, LlmAgent
from adk_runtime.errors import UnsupportedFeatureError
from adk_runtime.runners import InMemoryRunner
from adk_runtime.testing import ScriptedModel
from adk_runtime.utils.context_utils import Aclosing


@pytest.mark.parametrize("cls", [LiveRequest, LiveRequestQueue])
def test_live_api_objects_refuse_to_be_created(cls: type) -> None:
    with pytest.raises(UnsupportedFeatureError, match="Live API") as raised:
        cls()
    assert isinstance(raised.value, NotImplementedError)


def test_run_live_refuses() -> None:
    runner = InMemoryRunner(LlmAgent(name="a", model=ScriptedModel(replies=[])))
    with pytest.raises(UnsupportedFeatureError, match="run_async"):
        runner.run_live(user_id="u", session_id="s")


async def test_aclosing_closes_the_generator() -> None:
    closed: list[bool] = []

    async def numbers():  # type: ignore[no-untyped-def]
        try:
            yield 1
            yield 2
        finally:
            closed.append(True)

    async with Aclosing(numbers()) as stream:
        assert await anext(stream) == 1
    assert closed == [True]
