"""Code executors and the session state, cache analysis, artifacts in instructions: all backends."""

from __future__ import annotations

import base64
import time

import pytest
from google.genai import types

from adk_runtime.agents import CallbackContext, InvocationContext, LlmAgent
from adk_runtime.code_executors import (
    BaseCodeExecutor,
    CodeExecutionInput,
    CodeExecutionResult,
    CodeExecutorContext,
    File,
)
from adk_runtime.errors import ServiceNotConfiguredError
from adk_runtime.events import Event
from adk_runtime.models.cache_metadata import CacheMetadata
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel
from adk_runtime.utils.cache_performance_analyzer import CachePerformanceAnalyzer
from tests.llm.helpers import APP, USER, send, start, stored

pytestmark = pytest.mark.filterwarnings("ignore:\\[EXPERIMENTAL\\]:UserWarning")

_CODE = "```python\nprint(1)\n```"
_BINARY = bytes(range(256))


class _Recorder(BaseCodeExecutor):
    """Records each input; returns the files in ``produce``."""

    seen: list[CodeExecutionInput] = []
    produce: list[File] = []

    async def execute_code(
        self, invocation_context: InvocationContext, code_execution_input: CodeExecutionInput
    ) -> CodeExecutionResult:
        self.seen.append(code_execution_input)
        return CodeExecutionResult(stdout="done", output_files=list(self.produce))


async def test_a_stateful_executor_keeps_one_execution_id_in_the_stored_state(
    session_service: BaseSessionService,
) -> None:
    executor = _Recorder(stateful=True, seen=[])
    model = ScriptedModel(replies=[_CODE, "ok", _CODE, "ok"])
    runner = await start(LlmAgent(name="a", model=model, code_executor=executor), session_service)
    first = await send(runner, "run")
    assert [i.execution_id for i in executor.seen] == ["s1"]
    assert first[1].actions.state_delta == {
        "_code_execution_context": {"execution_session_id": "s1"}
    }
    assert (await stored(runner)).state["_code_execution_context"] == {"execution_session_id": "s1"}
    second = await send(runner, "again")
    assert [i.execution_id for i in executor.seen] == ["s1", "s1"]
    assert second[1].actions.state_delta == {}


async def test_an_execution_id_set_in_the_state_is_the_one_used(
    session_service: BaseSessionService,
) -> None:
    executor = _Recorder(stateful=True, seen=[])
    model = ScriptedModel(replies=[_CODE, "ok"])
    agent = LlmAgent(name="a", model=model, code_executor=executor)
    state = {"_code_execution_context": {"execution_session_id": "sandbox-7"}}
    runner = await start(agent, session_service, state=state)
    events = await send(runner, "run")
    assert [i.execution_id for i in executor.seen] == ["sandbox-7"]
    assert events[1].actions.state_delta == {}


async def test_a_stateless_executor_gets_no_execution_id_and_writes_no_state(
    session_service: BaseSessionService,
) -> None:
    executor = _Recorder(seen=[])
    runner = await start(
        LlmAgent(name="a", model=ScriptedModel(replies=[_CODE, "ok"]), code_executor=executor),
        session_service,
    )
    events = await send(runner, "run")
    assert executor.seen[0].execution_id is None
    assert events[1].actions.state_delta == {}
    assert "_code_execution_context" not in (await stored(runner)).state


async def test_input_files_written_by_a_callback_are_stored_and_given_to_the_code(
    session_service: BaseSessionService,
) -> None:
    files = [
        File(name="data.bin", content=_BINARY, mime_type="application/octet-stream"),
        File(name="notes.txt", content="héllo"),
    ]

    def add_files(callback_context: CallbackContext) -> None:
        context = CodeExecutorContext(callback_context.state)
        if not context.get_input_files():
            context.add_input_files(files)
            context.set_execution_id("kept")
            context.increment_error_count(callback_context.invocation_id)

    executor = _Recorder(seen=[])
    model = ScriptedModel(replies=[_CODE, "ok"])
    agent = LlmAgent(name="a", model=model, code_executor=executor, before_agent_callback=add_files)
    runner = await start(agent, session_service)
    await send(runner, "run")
    assert executor.seen[0].input_files == files
    reloaded = CodeExecutorContext((await stored(runner)).state)
    assert reloaded.get_input_files() == files
    assert reloaded.get_execution_id() == "kept"
    assert list(reloaded._error_counts().values()) == [1]


async def test_files_the_code_writes_are_saved_as_artifacts(
    session_service: BaseSessionService,
) -> None:
    produced = [
        File(name="chart.png", content=_BINARY, mime_type="image/png"),
        File("out.csv", base64.b64encode(b"a,b\n1,2\n").decode(), mime_type="text/csv"),
    ]
    executor = _Recorder(seen=[], produce=produced)
    model = ScriptedModel(replies=[_CODE, "ok"])
    runner = await start(LlmAgent(name="a", model=model, code_executor=executor), session_service)
    events = await send(runner, "plot")
    assert events[1].actions.artifact_delta == {"chart.png": 0, "out.csv": 0}
    result = events[1].content.parts[0].code_execution_result  # type: ignore[union-attr,index]
    assert result is not None
    assert result.outcome == types.Outcome.OUTCOME_OK
    assert result.output == "done\nFiles saved as artifacts: `chart.png`, `out.csv`"
    assert runner.artifact_service is not None
    chart = await runner.artifact_service.load_artifact(
        app_name=APP, user_id=USER, session_id="s1", filename="chart.png"
    )
    csv = await runner.artifact_service.load_artifact(
        app_name=APP, user_id=USER, session_id="s1", filename="out.csv"
    )
    assert chart is not None
    assert chart.inline_data is not None
    assert chart.inline_data.data == _BINARY
    assert csv is not None
    assert csv.inline_data is not None
    assert csv.inline_data.data == b"a,b\n1,2\n"
    assert (await stored(runner)).events[2].actions.artifact_delta == {
        "chart.png": 0,
        "out.csv": 0,
    }


async def test_the_cache_analyzer_reads_a_stored_session(
    session_service: BaseSessionService,
) -> None:
    session = await session_service.create_session(app_name=APP, user_id=USER)

    def cache(name: str, uses: int) -> CacheMetadata:
        return CacheMetadata(
            cache_name=f"projects/p/locations/l/cachedContents/{name}",
            expire_time=time.time() + 600,
            fingerprint="f",
            invocations_used=uses,
            contents_count=3,
            created_at=time.time(),
        )

    def usage(prompt: int, cached: int) -> types.GenerateContentResponseUsageMetadata:
        return types.GenerateContentResponseUsageMetadata(
            prompt_token_count=prompt, cached_content_token_count=cached
        )

    for author, metadata, tokens in [
        ("a", cache("c1", 1), usage(1000, 0)),
        ("a", cache("c1", 2), usage(1000, 800)),
        ("b", cache("c9", 5), usage(500, 500)),
        ("a", cache("c2", 1), usage(2000, 1000)),
    ]:
        event = Event(author=author, cache_metadata=metadata, usage_metadata=tokens)
        await session_service.append_event(session, event)

    analyzer = CachePerformanceAnalyzer(session_service)
    report = await analyzer.analyze_agent_cache_performance(session.id, USER, APP, "a")
    assert report == {
        "status": "active",
        "requests_with_cache": 3,
        "avg_invocations_used": 1.5,
        "latest_cache": "projects/p/locations/l/cachedContents/c2",
        "cache_refreshes": 2,
        "total_invocations": 3,
        "total_prompt_tokens": 4000,
        "total_cached_tokens": 1800,
        "cache_hit_ratio_percent": 45.0,
        "cache_utilization_ratio_percent": pytest.approx(200 / 3),
        "avg_cached_tokens_per_request": 600.0,
        "total_requests": 3,
        "requests_with_cache_hits": 2,
    }
    assert await analyzer.analyze_agent_cache_performance(session.id, USER, APP, "z") == {
        "status": "no_cache_data"
    }
    with pytest.raises(ValueError, match="no session"):
        await analyzer.analyze_agent_cache_performance("missing", USER, APP, "a")


async def test_instruction_artifacts_render_as_text(session_service: BaseSessionService) -> None:
    model = ScriptedModel(replies=["ok"])
    instruction = "Notes: {artifact.notes.txt}|{artifact.logo.png}|{artifact.gone?}|${HOME}"
    runner = await start(LlmAgent(name="a", model=model, instruction=instruction), session_service)
    assert runner.artifact_service is not None
    for name, part in [
        ("notes.txt", types.Part.from_bytes(data="ça va".encode(), mime_type="text/plain")),
        ("logo.png", types.Part.from_bytes(data=_BINARY, mime_type="image/png")),
    ]:
        await runner.artifact_service.save_artifact(
            app_name=APP, user_id=USER, session_id="s1", filename=name, artifact=part
        )
    await send(runner, "hi")
    assert model.requests[0].config.system_instruction == (
        "Notes: ça va|[Artifact logo.png: image/png, not text]||${HOME}"
    )


async def test_an_instruction_naming_an_artifact_needs_an_artifact_service(
    session_service: BaseSessionService,
) -> None:
    model = ScriptedModel(replies=["ok"])
    agent = LlmAgent(name="a", model=model, instruction="{artifact.x?}")
    runner = await start(agent, session_service, artifact_service=None)
    with pytest.raises(ServiceNotConfiguredError, match="pass artifact_service"):
        await send(runner, "hi")
    assert model.requests == []
