"""SkillToolset through a real Runner with a scripted model, on every session backend."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.errors import ConfigurationError
from adk_runtime.models import LlmRequest
from adk_runtime.sessions import BaseSessionService, InMemorySessionService
from adk_runtime.skills import Frontmatter, Resources, Script, Skill, SkillRegistry
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools.skill_toolset import (
    DEFAULT_SKILL_SYSTEM_INSTRUCTION,
    SkillDiscoveryMode,
    SkillLifecycleConfig,
    SkillLifecycleMode,
    SkillToolset,
)
from tests.llm.helpers import send, start, stored, texts

ACTIVE_KEY = "_adk_activated_skill_desk"
PNG = b"\x89PNG\r\n\x1a\n\x00\xff"


def make_skill(name: str = "pdf-forms", **metadata: Any) -> Skill:
    return Skill(
        frontmatter=Frontmatter(name=name, description=f"{name} helper", metadata=metadata),
        instructions=f"FOLLOW-{name}: read references/guide.md first.",
        resources=Resources(
            references={"guide.md": "# Guide to forms"},
            assets={"logo.png": PNG},
            scripts={"fill.py": Script(src="import sys; print('filled', *sys.argv[1:])")},
        ),
    )


def declared(request: LlmRequest) -> list[str]:
    return sorted(
        d.name or ""
        for t in request.config.tools or []
        for d in getattr(t, "function_declarations", None) or []
    )


def responses(request: LlmRequest) -> list[types.FunctionResponse]:
    return [
        part.function_response
        for content in request.contents
        for part in content.parts or []
        if part.function_response is not None
    ]


async def test_the_model_lists_loads_and_reads_a_skill(
    session_service: BaseSessionService,
) -> None:
    model = ScriptedModel(
        replies=[
            function_call("list_skills"),
            function_call("load_skill", {"skill_name": "pdf-forms"}),
            function_call(
                "load_skill_resource",
                {"skill_name": "pdf-forms", "file_path": "references/guide.md"},
            ),
            "done",
        ]
    )
    toolset = SkillToolset([make_skill(), make_skill("csv-tools")])
    runner = await start(LlmAgent(name="desk", model=model, tools=[toolset]), session_service)
    events = await send(runner, "fill my form")
    assert texts(events) == ["done"]
    first = model.requests[0]
    assert declared(first) == ["list_skills", "load_skill", "load_skill_resource"]
    instruction = str(first.config.system_instruction)
    assert "call `load_skill` with its `skill_name`" in instruction
    # no code executor: the model is told scripts cannot run, and is not offered the tool
    assert "programs you cannot run here" in instruction
    assert "run_skill_script" not in instruction
    listing = responses(model.requests[1])[-1].response
    assert listing is not None
    assert "<name>\npdf-forms\n</name>" in listing["result"]
    loaded = responses(model.requests[2])[-1].response
    assert loaded is not None
    assert loaded["skill_name"] == "pdf-forms"
    assert loaded["instructions"] == "FOLLOW-pdf-forms: read references/guide.md first."
    resource = responses(model.requests[3])[-1].response
    assert resource == {
        "skill_name": "pdf-forms",
        "file_path": "references/guide.md",
        "content": "# Guide to forms",
    }
    session = await stored(runner)
    assert session.state[ACTIVE_KEY] == ["pdf-forms"]


async def test_activated_skills_survive_a_new_runner(session_service: BaseSessionService) -> None:
    toolset = SkillToolset([make_skill()])
    first = ScriptedModel(replies=[function_call("load_skill", {"skill_name": "pdf-forms"}), "ok"])
    runner = await start(LlmAgent(name="desk", model=first, tools=[toolset]), session_service)
    await send(runner, "load it")
    await runner.close()

    # A new process: a new toolset and Runner on the same stored session, and an agent that
    # sends no history, so the skill's instructions can only come from the durable state.
    second = ScriptedModel(replies=["still following"])
    agent = LlmAgent(
        name="desk", model=second, tools=[SkillToolset([make_skill()])], include_contents="none"
    )
    from adk_runtime.runners import Runner

    resumed = Runner(app_name="app", agent=agent, session_service=session_service)
    await send(resumed, "next step")
    instruction = str(second.requests[0].config.system_instruction)
    assert "The skill `pdf-forms` is active" in instruction
    assert "FOLLOW-pdf-forms" in instruction
    assert (await stored(resumed)).state[ACTIVE_KEY] == ["pdf-forms"]


async def test_instructions_are_not_restated_while_in_the_history(
    session_service: BaseSessionService,
) -> None:
    model = ScriptedModel(
        replies=[function_call("load_skill", {"skill_name": "pdf-forms"}), "ok", "again"]
    )
    runner = await start(
        LlmAgent(name="desk", model=model, tools=[SkillToolset([make_skill()])]), session_service
    )
    await send(runner, "load it")
    await send(runner, "and now")
    assert "is active" not in str(model.requests[2].config.system_instruction)
    assert any(r.name == "load_skill" for r in responses(model.requests[2]))


async def test_a_binary_asset_is_attached_to_the_next_request() -> None:
    model = ScriptedModel(
        replies=[
            function_call(
                "load_skill_resource", {"skill_name": "pdf-forms", "file_path": "assets/logo.png"}
            ),
            "seen",
        ]
    )
    agent = LlmAgent(name="desk", model=model, tools=[SkillToolset([make_skill()])])
    runner = await start(agent, InMemorySessionService())
    await send(runner, "show the logo")
    last = model.requests[1].contents[-1]
    assert last.parts is not None
    assert last.parts[1].inline_data is not None
    assert last.parts[1].inline_data.data == PNG
    assert last.parts[1].inline_data.mime_type == "image/png"


async def test_missing_resources_and_skills_answer_with_error_codes() -> None:
    model = ScriptedModel(
        replies=[
            [
                function_call("load_skill", {"skill_name": "nope"}),
                function_call("load_skill_resource", {"skill_name": "pdf-forms", "file_path": "x"}),
            ],
            [
                function_call(
                    "load_skill_resource",
                    {"skill_name": "pdf-forms", "file_path": "references/../../etc/passwd"},
                ),
                function_call(
                    "load_skill_resource", {"skill_name": "pdf-forms", "file_path": "assets/no"}
                ),
            ],
            "sorry",
        ]
    )
    agent = LlmAgent(name="desk", model=model, tools=[SkillToolset([make_skill()])])
    runner = await start(agent, InMemorySessionService())
    await send(runner, "go")
    codes = [r.response["error_code"] for r in responses(model.requests[2]) if r.response]
    assert codes == [
        "SKILL_NOT_FOUND",
        "INVALID_RESOURCE_PATH",
        "RESOURCE_NOT_FOUND",
        "RESOURCE_NOT_FOUND_FATAL",
    ]
    assert not any(k.startswith("temp:") for k in (await stored(runner)).state)


async def test_additional_tools_appear_once_the_skill_is_loaded() -> None:
    def sign_pdf(name: str) -> str:
        """Sign a PDF."""
        return f"signed {name}"

    skill = make_skill(adk_additional_tools=["sign_pdf"])
    model = ScriptedModel(
        replies=[
            function_call("load_skill", {"skill_name": "pdf-forms"}),
            function_call("sign_pdf", {"name": "a.pdf"}),
            "signed",
        ]
    )
    toolset = SkillToolset([skill], additional_tools=[sign_pdf])
    runner = await start(
        LlmAgent(name="desk", model=model, tools=[toolset]), InMemorySessionService()
    )
    await send(runner, "sign")
    assert "sign_pdf" not in declared(model.requests[0])
    assert "sign_pdf" in declared(model.requests[1])  # the same invocation, next model call
    assert responses(model.requests[2])[-1].response == {"result": "signed a.pdf"}


async def test_eager_discovery_puts_the_catalog_in_the_instruction() -> None:
    model = ScriptedModel(replies=["hi"])
    toolset = SkillToolset([make_skill()], discovery_mode=SkillDiscoveryMode.EAGER)
    runner = await start(
        LlmAgent(name="desk", model=model, tools=[toolset]), InMemorySessionService()
    )
    await send(runner, "hi")
    assert "list_skills" not in declared(model.requests[0])
    assert "<name>\npdf-forms\n</name>" in str(model.requests[0].config.system_instruction)


async def test_an_ephemeral_skill_is_released_in_the_next_turn(
    session_service: BaseSessionService,
) -> None:
    config = SkillLifecycleConfig(default_mode=SkillLifecycleMode.EPHEMERAL)
    toolset = SkillToolset([make_skill()], lifecycle_config=config)
    model = ScriptedModel(
        replies=[function_call("load_skill", {"skill_name": "pdf-forms"}), "ok", "next"]
    )
    runner = await start(
        LlmAgent(name="desk", model=model, tools=[toolset], include_contents="none"),
        session_service,
    )
    events = await send(runner, "load")
    assert "lifecycle_notice" in (events[1].get_function_responses()[0].response or {})
    await send(runner, "next turn")
    assert "is active" not in str(model.requests[2].config.system_instruction)


async def test_bounded_skills_evict_the_least_recently_loaded() -> None:
    config = SkillLifecycleConfig(default_mode=SkillLifecycleMode.BOUNDED, max_active_skills=1)
    toolset = SkillToolset([make_skill(), make_skill("csv-tools")], lifecycle_config=config)
    model = ScriptedModel(
        replies=[
            function_call("load_skill", {"skill_name": "pdf-forms"}),
            function_call("load_skill", {"skill_name": "csv-tools"}),
            "ok",
        ]
    )
    runner = await start(
        LlmAgent(name="desk", model=model, tools=[toolset]), InMemorySessionService()
    )
    await send(runner, "load both")
    assert responses(model.requests[2])[-1].response["unloaded_skills"] == ["pdf-forms"]  # type: ignore[index]
    assert (await stored(runner)).state[ACTIVE_KEY] == ["csv-tools"]


async def test_unload_releases_the_skill_and_prunes_its_instructions(
    session_service: BaseSessionService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADK_ENABLE_SKILL_LIFECYCLE", "1")
    model = ScriptedModel(
        replies=[
            function_call("load_skill", {"skill_name": "pdf-forms"}),
            function_call("unload_skill", {"skill_name": "pdf-forms"}),
            "released",
            function_call("unload_skill", {"skill_name": "pdf-forms"}),
            "nothing to release",
        ]
    )
    toolset = SkillToolset([make_skill()])
    runner = await start(LlmAgent(name="desk", model=model, tools=[toolset]), session_service)
    await send(runner, "load then unload")
    assert "unload_skill" in declared(model.requests[0])
    assert (await stored(runner)).state[ACTIVE_KEY] == []
    pruned = [r for r in responses(model.requests[2]) if r.name == "load_skill"]
    assert pruned[0].response is not None
    assert pruned[0].response["status"] == "unloaded"
    assert "instructions" not in pruned[0].response
    await send(runner, "again")
    assert responses(model.requests[4])[-1].response["error_code"] == "SKILL_NOT_ACTIVE"  # type: ignore[index]


async def test_unload_is_not_offered_without_the_lifecycle_switch() -> None:
    assert "unload_skill" not in [t.name for t in await SkillToolset([make_skill()]).get_tools()]


async def test_inject_state_fills_placeholders_from_the_session() -> None:
    skill = Skill(
        frontmatter=Frontmatter(name="greet", description="d", metadata={"adk_inject_state": True}),
        instructions="Greet {user_name} in {lang?}.",
    )
    model = ScriptedModel(replies=[function_call("load_skill", {"skill_name": "greet"}), "hi"])
    agent = LlmAgent(name="desk", model=model, tools=[SkillToolset([skill])])
    runner = await start(agent, InMemorySessionService(), state={"user_name": "Ada"})
    await send(runner, "greet")
    assert responses(model.requests[1])[-1].response["instructions"] == "Greet Ada in ."  # type: ignore[index]


class Registry(SkillRegistry):
    def __init__(self) -> None:
        self.fetched: list[str] = []

    async def get_skill(self, *, name: str) -> Skill:
        self.fetched.append(name)
        if name == "broken":
            raise RuntimeError("db password=hunter2")
        return make_skill(name)

    async def search_skills(self, *, query: str) -> list[Frontmatter]:
        return [make_skill("remote-skill").frontmatter, make_skill("pdf-forms").frontmatter]


async def test_a_registry_is_searched_and_its_skills_loaded() -> None:
    registry = Registry()
    model = ScriptedModel(
        replies=[
            function_call("search_skills", {"query": "remote"}),
            [
                function_call("load_skill", {"skill_name": "remote-skill"}),
                function_call("load_skill", {"skill_name": "broken"}),
            ],
            "ok",
        ]
    )
    toolset = SkillToolset([make_skill()], registry=registry)
    runner = await start(
        LlmAgent(name="desk", model=model, tools=[toolset]), InMemorySessionService()
    )
    await send(runner, "find")
    found = responses(model.requests[1])[-1].response
    assert found is not None
    assert [s["name"] for s in found["result"]] == ["remote-skill"]  # local names win
    loaded, broken = responses(model.requests[2])[-2:]
    assert loaded.response is not None
    assert loaded.response["skill_name"] == "remote-skill"
    assert broken.response is not None
    assert broken.response["error_code"] == "REGISTRY_ERROR"
    assert "hunter2" not in broken.response["error"]


def test_unsupported_google_adk_options_are_refused() -> None:
    with pytest.raises(ConfigurationError, match="environment"):
        SkillToolset([make_skill()], environment=object())
    with pytest.raises(ConfigurationError, match="save_output_artifacts"):
        SkillToolset([make_skill()], save_output_artifacts=True)
    with pytest.raises(ValueError, match="unique"):
        SkillToolset([make_skill(), make_skill()])
    with pytest.raises(ValueError, match="at least 1"):
        SkillLifecycleConfig(max_active_skills=0)


def test_the_default_instruction_is_shared_and_names_every_default_tool() -> None:
    from adk_runtime import skills
    from adk_runtime.skills import prompt

    assert skills.DEFAULT_SKILL_SYSTEM_INSTRUCTION is DEFAULT_SKILL_SYSTEM_INSTRUCTION
    assert prompt.DEFAULT_SKILL_SYSTEM_INSTRUCTION is DEFAULT_SKILL_SYSTEM_INSTRUCTION
    for name in ("load_skill", "load_skill_resource", "run_skill_script"):
        assert f"`{name}`" in DEFAULT_SKILL_SYSTEM_INSTRUCTION
    assert "unload_skill" not in DEFAULT_SKILL_SYSTEM_INSTRUCTION


class GatedRegistry(SkillRegistry):
    """A registry whose fetches wait for ``gate``, counting them."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.fetched: list[str] = []

    async def get_skill(self, *, name: str) -> Skill:
        self.fetched.append(name)
        await self.gate.wait()
        return make_skill(name)

    async def search_skills(self, *, query: str) -> list[Frontmatter]:
        return []


async def test_registry_fetches_are_shared_per_turn_bounded_and_cancelled_on_close() -> None:
    registry = GatedRegistry()
    toolset = SkillToolset(registry=registry)
    waiting = [asyncio.create_task(toolset._get_or_fetch_skill("remote", "inv-1")) for _ in "abc"]
    await asyncio.sleep(0.01)
    registry.gate.set()
    found = await asyncio.gather(*waiting)
    assert registry.fetched == ["remote"]  # one fetch for the three calls of the turn
    assert all(skill is found[0] for skill in found)
    await toolset._get_or_fetch_skill("remote", "inv-1")
    assert registry.fetched == ["remote"]
    for turn in range(2, 18):
        await toolset._get_or_fetch_skill("remote", f"inv-{turn}")
    assert len(toolset._fetched_skill_cache) == 16
    assert "inv-1" not in toolset._fetched_skill_cache

    registry.gate.clear()
    fetching = asyncio.create_task(toolset._get_or_fetch_skill("other", "inv-99"))
    sharing = asyncio.create_task(toolset._get_or_fetch_skill("other", "inv-99"))
    await asyncio.sleep(0.01)
    await toolset.close()
    with pytest.raises(asyncio.CancelledError):
        await sharing  # waited on the fetch that close() cancelled
    registry.gate.set()
    fetched = await fetching
    assert fetched is not None
    assert fetched.name == "other"  # the fetch itself finishes without an error
    assert not toolset._fetched_skill_cache


async def test_a_binary_answer_is_recognised_by_its_shape_not_its_wording() -> None:
    toolset = SkillToolset([make_skill()])
    tool = next(t for t in toolset._tools if t.name == "load_skill_resource")
    runner = await start(
        LlmAgent(name="desk", model=ScriptedModel(), tools=[toolset]), InMemorySessionService()
    )
    session = await runner.session_service.get_session(
        app_name="app", user_id="u1", session_id="s1"
    )
    assert session is not None
    from adk_runtime.core.invocation_context import InvocationContext
    from adk_runtime.tools import ToolContext

    context = ToolContext(
        InvocationContext(
            invocation_id="inv-1",
            agent=LlmAgent(name="desk", model=ScriptedModel(), tools=[toolset]),
            session=session,
            session_service=runner.session_service,
        )
    )
    answer = {"skill_name": "pdf-forms", "file_path": "assets/logo.png", "status": "see below"}
    text = {"skill_name": "pdf-forms", "file_path": "references/guide.md", "content": "x"}
    request = LlmRequest(
        contents=[
            types.Content(
                role="user",
                parts=[
                    types.Part.from_function_response(name="load_skill_resource", response=answer),
                    types.Part.from_function_response(name="load_skill_resource", response=text),
                ],
            )
        ]
    )
    await tool.process_llm_request(tool_context=context, llm_request=request)
    assert len(request.contents) == 2  # one attachment: the binary file's
    attached = request.contents[1].parts or []
    assert attached[0].text == "The content of binary file 'assets/logo.png' is:"
    assert attached[1].inline_data is not None
    assert attached[1].inline_data.data == PNG


async def test_inject_session_state_fills_a_template() -> None:
    from adk_runtime.core.readonly_context import ReadonlyContext
    from adk_runtime.utils import instructions_utils

    runner = await start(LlmAgent(name="desk", model=ScriptedModel()), InMemorySessionService())
    session = await runner.session_service.get_session(
        app_name="app", user_id="u1", session_id="s1"
    )
    assert session is not None
    session.state["user_name"] = "Ada"
    from adk_runtime.core.invocation_context import InvocationContext

    ctx = ReadonlyContext(
        InvocationContext(
            invocation_id="inv-1",
            agent=LlmAgent(name="desk", model=ScriptedModel()),
            session=session,
            session_service=runner.session_service,
        )
    )
    filled = await instructions_utils.inject_session_state("Hi {user_name}{missing?}!", ctx)
    assert filled == "Hi Ada!"
