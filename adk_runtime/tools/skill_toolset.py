"""SkillToolset: Agent Skills as tools (``google.adk.tools.skill_toolset`` → here).

The model discovers skills (``list_skills``, or the catalog in the system instruction with
``SkillDiscoveryMode.EAGER``; ``search_skills`` for a :class:`SkillRegistry`), loads one
(``load_skill`` answers with its instructions and marks it active), reads its files
(``load_skill_resource``), runs its scripts through an executor the application gave
(``run_skill_script``) and, with google-adk's ``SKILL_LIFECYCLE`` switch on, releases it
(``unload_skill``).

Durability: the active skills are session state (see ``_skill_state``), written through the
tool context, so they are committed with the function-response event of the call and
survive a restart on a durable session store. While a skill is active its
``adk_additional_tools`` are offered, and when its ``load_skill`` answer is not in the
request (``include_contents="none"``, or compacted history) its instructions are restated in
the system instruction, so a resumed session behaves as the one that loaded it.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from google.genai import types

from adk_runtime.code_executors.base_code_executor import BaseCodeExecutor
from adk_runtime.code_executors.built_in_code_executor import BuiltInCodeExecutor
from adk_runtime.core.base_tool import BaseTool
from adk_runtime.core.base_toolset import BaseToolset, ToolPredicate
from adk_runtime.core.readonly_context import ReadonlyContext
from adk_runtime.errors import ConfigurationError
from adk_runtime.skills import models, prompt
from adk_runtime.skills._instruction import (
    DEFAULT_SKILL_SYSTEM_INSTRUCTION,
    LIST_SKILLS,
    LOAD_SKILL,
    SEARCH_SKILLS,
    build_skill_system_instruction,
)
from adk_runtime.skills._instruction import (
    build_skill_system_instruction as _build_skill_system_instruction,
)
from adk_runtime.skills._switches import SKILL_LIFECYCLE, switch_enabled
from adk_runtime.skills.skill_registry import SkillRegistry
from adk_runtime.tools._skill_script import RunSkillScriptTool, _SkillScriptCodeExecutor
from adk_runtime.tools._skill_state import (
    SkillActivations,
    SkillDiscoveryMode,
    SkillLifecycleConfig,
    SkillLifecycleMode,
    skill_digest,
)
from adk_runtime.tools._skill_tools import (
    ListSkillsTool,
    LoadSkillResourceTool,
    LoadSkillTool,
    SearchSkillsTool,
    UnloadSkillTool,
)
from adk_runtime.tools.function_tool import FunctionTool
from adk_runtime.utils import instructions_utils

if TYPE_CHECKING:
    from adk_runtime.core.tool_context import ToolContext
    from adk_runtime.models.llm_request import LlmRequest

__all__ = [
    "DEFAULT_SKILL_SYSTEM_INSTRUCTION",
    "BaseCodeExecutor",
    "BaseTool",
    "BaseToolset",
    "FunctionTool",
    "ListSkillsTool",
    "LoadSkillResourceTool",
    "LoadSkillTool",
    "RunSkillScriptTool",
    "SearchSkillsTool",
    "SkillDiscoveryMode",
    "SkillLifecycleConfig",
    "SkillLifecycleMode",
    "SkillRegistry",
    "SkillToolset",
    "UnloadSkillTool",
    "_SkillScriptCodeExecutor",
    "_build_skill_system_instruction",
    "instructions_utils",
]

logger = logging.getLogger(__name__)

_DEFAULT_SCRIPT_TIMEOUT = 300
_MAX_CACHED_TURNS = 16
_Cached = models.Skill | None | asyncio.Future[models.Skill | None]
_UNLOADED_NOTICE = {
    "status": "unloaded",
    "detail": "This skill was unloaded: its instructions and the tools it added no longer "
    "apply. Load it again to use it.",
}


class SkillToolset(BaseToolset):
    """Agent Skills for an ``LlmAgent``: put it in ``tools``.

    Args:
        skills: The local skills (names must be unique).
        registry: A registry to search and fetch more skills from.
        code_executor: Runs skill scripts (``run_skill_script``); without it the agent's own
            executor is used, unless that is ``BuiltInCodeExecutor``; with neither, scripts
            are never run.
        environment: google-adk's execution environments are not supported (must be None).
        skills_folder: Only with an environment (must be None).
        script_timeout: Seconds a script may run.
        save_output_artifacts: Saving files a script writes is not supported (must be False).
        additional_tools: Tools, toolsets or functions offered while a skill whose
            ``metadata.adk_additional_tools`` names them is active.
        tool_name_prefix: Offer each tool as ``<prefix>_<name>``.
        tool_filter: Tool names to offer, or a predicate.
        discovery_mode: ``LAZY`` (``list_skills``) or ``EAGER`` (catalog in the instruction).
        lifecycle_config: How long skills stay active (default: until unloaded).

    Raises:
        ValueError: Two skills share a name.
        ConfigurationError: ``environment``, ``skills_folder`` or ``save_output_artifacts``.
    """

    def __init__(
        self,
        skills: list[models.Skill] | None = None,
        *,
        registry: SkillRegistry | None = None,
        code_executor: BaseCodeExecutor | None = None,
        environment: Any = None,
        skills_folder: Path | str | None = None,
        script_timeout: int = _DEFAULT_SCRIPT_TIMEOUT,
        save_output_artifacts: bool = False,
        additional_tools: Sequence[Any] | None = None,
        tool_name_prefix: str | None = None,
        tool_filter: ToolPredicate | list[str] | None = None,
        discovery_mode: SkillDiscoveryMode = SkillDiscoveryMode.LAZY,
        lifecycle_config: SkillLifecycleConfig | None = None,
    ) -> None:
        """Offer ``skills`` (see the class docstring for the arguments)."""
        super().__init__(tool_filter=tool_filter, tool_name_prefix=tool_name_prefix)
        _refuse_unsupported(environment, skills_folder, save_output_artifacts)
        self._skills: dict[str, models.Skill] = {}
        for skill in skills or []:
            if skill.name in self._skills:
                raise ValueError(f"Duplicate skill name {skill.name!r}: names must be unique.")
            self._skills[skill.name] = skill
        self._registry = registry
        self._code_executor = code_executor
        self._script_timeout = script_timeout
        self._discovery_mode = discovery_mode
        self._lifecycle_config = lifecycle_config or SkillLifecycleConfig()
        self._activations = SkillActivations(self._lifecycle_config)
        self._lifecycle_enabled = switch_enabled(SKILL_LIFECYCLE)
        # Registry fetches, per invocation (a future while one is under way): at most one
        # fetch per skill and turn, for the last _MAX_CACHED_TURNS turns.
        self._fetched_skill_cache: collections.OrderedDict[str, dict[str, _Cached]]
        self._fetched_skill_cache = collections.OrderedDict()
        # Tools are listed again on each model call (a skill's tools come and go mid-turn).
        self._use_invocation_cache = False
        self._provided_tools_by_name: dict[str, BaseTool] = {}
        self._provided_toolsets: list[BaseToolset] = []
        for entry in additional_tools or []:
            if isinstance(entry, BaseToolset):
                self._provided_toolsets.append(entry)
            elif isinstance(entry, BaseTool):
                self._provided_tools_by_name[entry.name] = entry
            elif callable(entry):
                tool = FunctionTool(entry)
                self._provided_tools_by_name[tool.name] = tool
        self._tools: list[BaseTool] = []
        if discovery_mode is SkillDiscoveryMode.LAZY:
            self._tools.append(ListSkillsTool(self))
        self._tools += [LoadSkillTool(self), LoadSkillResourceTool(self), RunSkillScriptTool(self)]
        if registry is not None:
            self._tools.append(SearchSkillsTool(self))
        if self._lifecycle_enabled:
            self._tools.append(UnloadSkillTool(self))

    # -- the catalog -------------------------------------------------------------------------

    @property
    def skills(self) -> list[models.Skill]:
        """The local skills."""
        return self._list_skills()

    @property
    def skills_folder(self) -> Path | None:
        """Where skills are written in an execution environment: never, here (None)."""
        return None

    def _list_skills(self) -> list[models.Skill]:
        return list(self._skills.values())

    def _get_skill(self, skill_name: str) -> models.Skill | None:
        return self._skills.get(skill_name)

    async def _get_or_fetch_skill(
        self, skill_name: str, invocation_id: str | None = None
    ) -> models.Skill | None:
        """A local skill, else the registry's (fetched once per invocation, concurrently safe)."""
        skill = self._get_skill(skill_name)
        if skill is not None or self._registry is None:
            return skill
        if not invocation_id:
            return await self._registry.get_skill(name=skill_name)
        turn = self._fetched_skill_cache.setdefault(invocation_id, {})
        while len(self._fetched_skill_cache) > _MAX_CACHED_TURNS:
            self._fetched_skill_cache.popitem(last=False)
        if skill_name in turn:
            cached = turn[skill_name]
            if isinstance(cached, asyncio.Future):
                return await asyncio.shield(cached)
            return cached
        pending: asyncio.Future[models.Skill | None] = asyncio.get_running_loop().create_future()
        turn[skill_name] = pending
        try:
            fetched = await self._registry.get_skill(name=skill_name)
        except Exception as exc:
            turn.pop(skill_name, None)
            if not pending.done():  # close() may have cancelled it
                pending.set_exception(exc)
                pending.exception()  # retrieved: a failed fetch is not logged as unhandled
            raise
        if not pending.done():
            pending.set_result(fetched)
            turn[skill_name] = fetched
        return fetched

    def clone_with_updated_skills(self, skills: list[models.Skill]) -> SkillToolset:
        """A toolset configured like this one, offering ``skills``."""
        return SkillToolset(
            skills,
            registry=self._registry,
            code_executor=self._code_executor,
            script_timeout=self._script_timeout,
            additional_tools=[*self._provided_tools_by_name.values(), *self._provided_toolsets],
            tool_name_prefix=self.tool_name_prefix,
            tool_filter=self.tool_filter,
            discovery_mode=self._discovery_mode,
            lifecycle_config=self._lifecycle_config,
        )

    # -- activation ---------------------------------------------------------------------------

    def list_active_skills(self, ctx: ReadonlyContext) -> list[str]:
        """The skills active for ``ctx``'s agent, least recently loaded first."""
        return self._activations.active(ctx.state, ctx.agent_name, ctx.invocation_id)

    async def load_skill(self, ctx: ToolContext, skill_name: str) -> bool:
        """Activate ``skill_name`` for ``ctx``'s agent without the model (adds its tools only).

        Returns:
            True when it was activated, False when it already was active.

        Raises:
            ValueError: No such skill locally or in the registry.
        """
        if skill_name in self.list_active_skills(ctx):
            self._activate(ctx, skill_name, None)
            return False
        skill = await self._get_or_fetch_skill(skill_name, ctx.invocation_id)
        if skill is None:
            raise ValueError(f"There is no skill named {skill_name!r}.")
        was_active = skill_name in self.list_active_skills(ctx)
        self._activate(ctx, skill_name, skill)
        return not was_active

    def unload_skill(self, ctx: ToolContext, skill_name: str) -> bool:
        """Deactivate ``skill_name`` for ``ctx``'s agent; True when it was active."""
        released = self._activations.deactivate(
            ctx.state, ctx.agent_name, skill_name, ctx.invocation_id
        )
        self._forget_cached_tools()
        return released

    def _activate(self, ctx: ToolContext, skill_name: str, skill: models.Skill | None) -> list[str]:
        released = self._activations.activate(
            ctx.state, ctx.agent_name, skill_name, ctx.invocation_id, skill
        )
        self._forget_cached_tools()
        return released

    def _is_ephemeral(self, skill_name: str) -> bool:
        return self._activations.mode_of(skill_name) is SkillLifecycleMode.EPHEMERAL

    def _forget_cached_tools(self) -> None:
        """Make the next model call of this invocation list the tools again.

        A skill's additional tools then appear or go at once, not in the next turn.
        """
        self._cached_prefixed_tools = None
        self._cached_invocation_id = None

    async def _instructions_of(self, skill: models.Skill, ctx: ReadonlyContext) -> str:
        """The skill's instructions, with ``{key}`` filled from state if it asks for that."""
        if skill.frontmatter.metadata.get("adk_inject_state"):
            return await instructions_utils.inject_session_state(skill.instructions, ctx)
        return skill.instructions

    # -- tools --------------------------------------------------------------------------------

    def _executor_for(self, ctx: ReadonlyContext | None) -> BaseCodeExecutor | None:
        """The toolset's executor, else the agent's unless it runs code on the model's side."""
        if self._code_executor is not None:
            return self._code_executor
        agent = getattr(getattr(ctx, "_invocation_context", None), "agent", None)
        executor = getattr(agent, "code_executor", None)
        if executor is None or isinstance(executor, BuiltInCodeExecutor):
            return None
        return executor  # type: ignore[no-any-return]

    def _offers_script_tool(self, ctx: ReadonlyContext | None) -> bool:
        if ctx is None:
            return True  # no agent to ask (listing tools outside a run)
        if self._executor_for(ctx) is None:
            return False
        return self._registry is not None or any(
            skill.resources.list_scripts() for skill in self._list_skills()
        )

    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        """The skill tools, plus the additional tools of the active skills."""
        tools = [*self._tools, *await self._resolve_additional_tools_from_state(readonly_context)]
        if not self._offers_script_tool(readonly_context):
            tools = [t for t in tools if not isinstance(t, RunSkillScriptTool)]
        return [t for t in tools if self._is_tool_selected(t, readonly_context)]

    async def _resolve_additional_tools_from_state(
        self, ctx: ReadonlyContext | None
    ) -> list[BaseTool]:
        """The tools the active skills' ``metadata.adk_additional_tools`` name, once each."""
        if ctx is None:
            return []
        wanted: dict[str, None] = {}
        for name in self.list_active_skills(ctx):
            skill = await self._get_or_fetch_skill(name, ctx.invocation_id)
            if skill is not None:
                wanted.update(
                    dict.fromkeys(skill.frontmatter.metadata.get("adk_additional_tools") or [])
                )
        if not wanted:
            return []
        candidates = await self._candidate_tools(ctx)
        taken = {tool.name for tool in self._tools}
        found: list[BaseTool] = []
        for name in wanted:
            tool = candidates.get(name)
            if tool is None:
                continue
            if tool.name in taken:
                logger.error("Skill tool %r collides with a skill toolset tool; left out.", name)
                continue
            taken.add(tool.name)
            found.append(tool)
        return found

    async def _candidate_tools(self, ctx: ReadonlyContext) -> dict[str, BaseTool]:
        """The additional tools by name (a toolset that fails to list is skipped, logged)."""
        candidates = dict(self._provided_tools_by_name)
        listed = await asyncio.gather(
            *(t.get_tools_with_prefix(ctx) for t in self._provided_toolsets), return_exceptions=True
        )
        for toolset, result in zip(self._provided_toolsets, listed, strict=True):
            if isinstance(result, Exception):
                logger.warning(
                    "Skipping skill tools of %s: %s", type(toolset).__name__, type(result).__name__
                )
                continue
            if isinstance(result, BaseException):
                raise result
            candidates.update((tool.name, tool) for tool in result)
        return candidates

    # -- the request --------------------------------------------------------------------------

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Add the skill guidance to the system instruction, and the catalog in EAGER mode.

        Active skills whose instructions the request lacks (or that changed, with
        ``revalidate_skills``) are restated; with the lifecycle switch on, the ``load_skill``
        answers of unloaded skills in the history are replaced by a notice.
        """
        p = f"{self.tool_name_prefix}_" if self.tool_name_prefix else ""
        selected = {t.name for t in self._tools if self._is_tool_selected(t, tool_context)}
        instructions = [
            build_skill_system_instruction(
                prefix=self.tool_name_prefix,
                allowed_tools=selected,
                script_execution_enabled=self._offers_script_tool(tool_context),
                unload_enabled=self._lifecycle_enabled,
            )
        ]
        if self._discovery_mode is SkillDiscoveryMode.EAGER or LIST_SKILLS not in selected:
            instructions.append(prompt.format_skills_as_xml(self._list_skills()))
        if self._registry is not None and SEARCH_SKILLS in selected:
            instructions.append(
                f"When no listed skill fits, look for one in the registry with "
                f"`{p}{SEARCH_SKILLS}`."
            )
        instructions += await self._restated(tool_context, llm_request, f"{p}{LOAD_SKILL}")
        llm_request.append_instructions(instructions)
        if self._lifecycle_enabled:
            active = set(self.list_active_skills(tool_context))
            _prune_unloaded(llm_request.contents, f"{p}{LOAD_SKILL}", active)

    async def _restated(
        self, ctx: ToolContext, llm_request: LlmRequest, load_name: str
    ) -> list[str]:
        """Instructions of the active skills the request lacks or that changed since loaded."""
        active = self.list_active_skills(ctx)
        if not active:
            return []
        shown = _loaded_in(llm_request.contents, load_name)
        records = self._activations.records(ctx.state, ctx.agent_name)
        texts: list[str] = []
        for name in active:
            loaded_hash = records.get(name, {}).get("version_hash")
            if name in shown and not (self._activations.revalidates and loaded_hash):
                continue
            try:
                skill = await self._get_or_fetch_skill(name, ctx.invocation_id)
            except Exception as exc:
                logger.warning("Could not fetch active skill %r: %s", name, type(exc).__name__)
                continue
            if skill is None:
                continue
            if name not in shown:
                body = await self._instructions_of(skill, ctx)
                texts.append(f"The skill `{name}` is active. Its instructions:\n\n{body}")
            elif skill_digest(skill) != loaded_hash:
                body = await self._instructions_of(skill, ctx)
                texts.append(
                    f"The skill `{name}` changed after you loaded it. These instructions "
                    f"replace the ones `{load_name}` returned:\n\n{body}"
                )
        return texts

    async def close(self) -> None:
        """Drop the cached registry fetches (a fetch still under way is cancelled)."""
        for turn in self._fetched_skill_cache.values():
            for cached in turn.values():
                if isinstance(cached, asyncio.Future) and not cached.done():
                    cached.cancel()
        self._fetched_skill_cache.clear()
        await super().close()


def _refuse_unsupported(environment: Any, skills_folder: Any, save_output_artifacts: bool) -> None:
    if environment is not None or skills_folder is not None:
        raise ConfigurationError(
            "SkillToolset(environment=..., skills_folder=...) is not supported by adk_runtime "
            "(google-adk's execution environments are not implemented); pass a code_executor "
            "to run skill scripts."
        )
    if save_output_artifacts:
        raise ConfigurationError(
            "SkillToolset(save_output_artifacts=True) is not supported by adk_runtime: a "
            "skill script's files are not saved as artifacts."
        )


def _loaded_in(contents: list[types.Content], load_name: str) -> set[str]:
    """The skills whose ``load_skill`` answer (with instructions) is in ``contents``."""
    found: set[str] = set()
    for content in contents:
        for part in content.parts or []:
            response = part.function_response
            if response is not None and response.name == load_name:
                body = response.response or {}
                if "instructions" in body and isinstance(body.get("skill_name"), str):
                    found.add(body["skill_name"])
    return found


def _prune_unloaded(contents: list[types.Content], load_name: str, active: set[str]) -> None:
    """Replace, in place, ``load_skill`` answers of skills no longer active by a notice.

    Whole ``Content`` objects are replaced (never edited): they are shared with the session.
    """
    for index, content in enumerate(contents):
        parts = list(content.parts or [])
        changed = False
        for position, part in enumerate(parts):
            response = part.function_response
            if response is None or response.name != load_name:
                continue
            body = response.response or {}
            name = body.get("skill_name")
            if "instructions" not in body or not isinstance(name, str) or name in active:
                continue
            notice = response.model_copy(
                update={"response": {"skill_name": name, **_UNLOADED_NOTICE}}
            )
            parts[position] = part.model_copy(update={"function_response": notice})
            changed = True
        if changed:
            contents[index] = content.model_copy(update={"parts": parts})
