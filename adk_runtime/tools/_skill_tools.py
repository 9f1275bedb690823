"""The skill tools the model calls: list, search, load, unload, and read a resource.

Each answers with a dict; a failure is ``{"error": ..., "error_code": ...}`` with google-adk's
codes (``INVALID_ARGUMENTS``, ``SKILL_NOT_FOUND``, ``REGISTRY_ERROR``, ``SKILL_NOT_ACTIVE``,
``INVALID_RESOURCE_PATH``, ``RESOURCE_NOT_FOUND``, ``RESOURCE_NOT_FOUND_FATAL``), so a model
prompted for google-adk reads them the same. Messages never carry a registry's exception text
(only its type): it may hold anything.
"""

from __future__ import annotations

import logging
import mimetypes
from typing import TYPE_CHECKING, Any

from google.genai import types

from adk_runtime.core.base_tool import BaseTool
from adk_runtime.skills import models, prompt
from adk_runtime.skills._instruction import (
    LIST_SKILLS,
    LOAD_SKILL,
    LOAD_SKILL_RESOURCE,
    SEARCH_SKILLS,
    UNLOAD_SKILL,
)

if TYPE_CHECKING:
    from adk_runtime.core.tool_context import ToolContext
    from adk_runtime.models.llm_request import LlmRequest
    from adk_runtime.tools.skill_toolset import SkillToolset

__all__ = [
    "BINARY_FILE_NOTICE",
    "ListSkillsTool",
    "LoadSkillResourceTool",
    "LoadSkillTool",
    "SearchSkillsTool",
    "UnloadSkillTool",
    "failure",
    "fetch",
    "not_found",
    "string_arguments",
]

logger = logging.getLogger(__name__)

BINARY_FILE_NOTICE = (
    "This file is binary: its content follows in the conversation as an attachment."
)
_EPHEMERAL_NOTICE = (
    "This skill is active for the current turn only; load it again in a later turn if needed."
)
_FOLDERS = ("references/", "assets/", "scripts/")


def failure(code: str, message: str) -> dict[str, Any]:
    """A tool answer reporting a failure."""
    return {"error": message, "error_code": code}


def string_arguments(args: dict[str, Any], *names: str) -> list[str] | dict[str, Any]:
    """The values of the arguments ``names``, in order, or the failure to answer with.

    The failure (``INVALID_ARGUMENTS``) names each argument that is empty or not a string.
    """
    values = {name: args.get(name) for name in names}
    missing = [name for name, value in values.items() if not value or not isinstance(value, str)]
    if missing:
        return failure(
            "INVALID_ARGUMENTS", "\n".join(f"Argument {name!r} is required." for name in missing)
        )
    return [value for value in values.values() if isinstance(value, str)]


def _declaration(tool: BaseTool, properties: dict[str, Any]) -> types.FunctionDeclaration:
    return types.FunctionDeclaration(
        name=tool.name,
        description=tool.description,
        parameters_json_schema={
            "type": "object",
            "properties": properties,
            **({"required": list(properties)} if properties else {}),
        },
    )


_SKILL_NAME = {"skill_name": {"type": "string", "description": "The skill's name."}}


async def fetch(
    toolset: SkillToolset, skill_name: str, invocation_id: str | None
) -> models.Skill | dict[str, Any]:
    """The skill, or the failure to answer with."""
    try:
        skill = await toolset._get_or_fetch_skill(skill_name, invocation_id)
    except Exception as exc:
        logger.warning("Skill registry failed to fetch a skill: %s", type(exc).__name__)
        return failure(
            "REGISTRY_ERROR",
            f"The skill registry failed to return skill {skill_name!r} ({type(exc).__name__}).",
        )
    if skill is None:
        return failure("SKILL_NOT_FOUND", f"Skill {skill_name!r} not found.")
    return skill


class _SkillTool(BaseTool):
    TOOL_NAME = ""
    DESCRIPTION = ""
    PARAMETERS: dict[str, Any] = {}  # JSON schema of each (required) string argument

    def __init__(self, toolset: SkillToolset) -> None:
        super().__init__(name=self.TOOL_NAME, description=self.DESCRIPTION)
        self._toolset = toolset

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        return _declaration(self, self.PARAMETERS)

    def _detect_error_in_response(self, response: Any) -> str | None:
        """The error code of a failed answer (for telemetry), or None."""
        if isinstance(response, dict) and response.get("error"):
            return str(response.get("error_code") or "TOOL_ERROR")
        return None


class ListSkillsTool(_SkillTool):
    """``list_skills``: the local catalog as an ``<available_skills>`` XML block."""

    TOOL_NAME = LIST_SKILLS
    DESCRIPTION = "Lists the available skills, with the name and description of each."

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """The catalog."""
        return prompt.format_skills_as_xml(self._toolset._list_skills())


class SearchSkillsTool(_SkillTool):
    """``search_skills``: the registry's skills matching a query (local names filtered out)."""

    TOOL_NAME = SEARCH_SKILLS
    DESCRIPTION = "Searches the skill registry for skills matching a query (keywords or a need)."
    PARAMETERS = {"query": {"type": "string", "description": "What to find."}}

    def __init__(self, toolset: SkillToolset) -> None:
        """Search ``toolset``'s registry.

        Raises:
            ValueError: The toolset has no registry.
        """
        if toolset._registry is None:
            raise ValueError("SearchSkillsTool requires a configured skill registry.")
        super().__init__(toolset)
        self.description = toolset._registry.search_tool_description() or self.DESCRIPTION

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """The matching skills' front matter."""
        query = args.get("query")
        registry = self._toolset._registry
        if not query or not isinstance(query, str):
            return failure("INVALID_ARGUMENTS", "Argument 'query' is required.")
        assert registry is not None
        try:
            found = await registry.search_skills(query=query)
        except Exception as exc:
            logger.warning("Skill registry search failed: %s", type(exc).__name__)
            return failure(
                "REGISTRY_ERROR", f"The skill registry search failed ({type(exc).__name__})."
            )
        local = {skill.name for skill in self._toolset._list_skills()}
        shadowed = [f.name for f in found if f.name in local]
        if shadowed:
            logger.warning("Registry skills %s are shadowed by local skills.", shadowed)
        return [f.model_dump() for f in found if f.name not in local]


class _SkillNameTool(_SkillTool):
    """A tool whose one argument is ``skill_name``: checked here, answered by :meth:`_answer`."""

    PARAMETERS = _SKILL_NAME

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """The answer for the named skill, or ``INVALID_ARGUMENTS`` without a name."""
        arguments = string_arguments(args, "skill_name")
        if isinstance(arguments, dict):
            return arguments
        [skill_name] = arguments
        return await self._answer(skill_name, tool_context)

    async def _answer(self, skill_name: str, tool_context: ToolContext) -> Any:
        raise NotImplementedError


class LoadSkillTool(_SkillNameTool):
    """``load_skill``: activate a skill and answer with its instructions."""

    TOOL_NAME = LOAD_SKILL
    DESCRIPTION = "Loads a skill: activates it and returns the instructions of its SKILL.md."

    async def _answer(self, skill_name: str, tool_context: ToolContext) -> Any:
        """Activate the skill (recorded in state) and return its instructions."""
        skill = await fetch(self._toolset, skill_name, tool_context.invocation_id)
        if isinstance(skill, dict):
            return skill
        released = self._toolset._activate(tool_context, skill_name, skill)
        result: dict[str, Any] = {
            "skill_name": skill_name,
            "instructions": await self._toolset._instructions_of(skill, tool_context),
            "frontmatter": skill.frontmatter.model_dump(),
        }
        if released:
            result["unloaded_skills"] = released
        if self._toolset._is_ephemeral(skill_name):
            result["lifecycle_notice"] = _EPHEMERAL_NOTICE
        return result


class UnloadSkillTool(_SkillNameTool):
    """``unload_skill``: release an active skill and the tools it added.

    Offered when google-adk's ``SKILL_LIFECYCLE`` switch is on. Later requests replace the
    instructions it was loaded with by a short notice (the stored events keep them).
    """

    TOOL_NAME = UNLOAD_SKILL
    DESCRIPTION = "Unloads an active skill whose task is done, releasing the tools it added."

    async def _answer(self, skill_name: str, tool_context: ToolContext) -> Any:
        """Deactivate the skill; answer with the skills still active."""
        if not self._toolset.unload_skill(tool_context, skill_name):
            return failure("SKILL_NOT_ACTIVE", f"Skill {skill_name!r} is not active.")
        return {
            "skill_name": skill_name,
            "unloaded": True,
            "active_skills": self._toolset.list_active_skills(tool_context),
        }


def resource_content(skill: models.Skill, file_path: str) -> str | bytes | None:
    """The content of ``references/…``, ``assets/…`` or ``scripts/…`` in ``skill``, or None."""
    folder, _, name = file_path.partition("/")
    if folder == "references":
        return skill.resources.get_reference(name)
    if folder == "assets":
        return skill.resources.get_asset(name)
    if folder != "scripts":
        return None
    script = skill.resources.get_script(name)
    return script.src if script is not None else None


class LoadSkillResourceTool(_SkillTool):
    """``load_skill_resource``: one file of a skill's ``references/``, ``assets/``, ``scripts/``.

    A text file comes back in the answer. A binary file is announced in the answer and
    attached to the next request as inline data, after the function response.
    """

    TOOL_NAME = LOAD_SKILL_RESOURCE
    DESCRIPTION = (
        "Reads one file of a skill: a path starting with references/, assets/ or scripts/."
    )
    PARAMETERS = {
        **_SKILL_NAME,
        "file_path": {
            "type": "string",
            "description": "The file's path in the skill, e.g. 'references/guide.md'.",
        },
    }

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """The file's text, or a notice that binary content follows."""
        arguments = string_arguments(args, "skill_name", "file_path")
        if isinstance(arguments, dict):
            return arguments
        skill_name, file_path = arguments
        skill = await fetch(self._toolset, skill_name, tool_context.invocation_id)
        if isinstance(skill, dict):
            return skill
        if not file_path.startswith(_FOLDERS):
            return failure(
                "INVALID_RESOURCE_PATH",
                "Path must start with 'references/', 'assets/', or 'scripts/'.",
            )
        content = resource_content(skill, file_path)
        if content is None:
            return not_found(tool_context, "resource", skill_name, file_path, "skill files")
        if isinstance(content, bytes):
            return {"skill_name": skill_name, "file_path": file_path, "status": BINARY_FILE_NOTICE}
        return {"skill_name": skill_name, "file_path": file_path, "content": content}

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Offer the tool; attach binary files this tool announced in the last turn."""
        await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)
        if not llm_request.contents:
            return
        for part in llm_request.contents[-1].parts or []:
            response = part.function_response
            if response is None or response.name != self.name:
                continue
            body = response.response or {}
            if "status" not in body or "content" in body or "error" in body:
                continue  # a binary file's answer: a notice (ours or google-adk's), no content
            attachment = await self._attachment(body, tool_context)
            if attachment is not None:
                llm_request.contents.append(attachment)

    async def _attachment(
        self, body: dict[str, Any], tool_context: ToolContext
    ) -> types.Content | None:
        skill_name, file_path = body.get("skill_name"), body.get("file_path")
        if not isinstance(skill_name, str) or not isinstance(file_path, str):
            return None
        skill = await fetch(self._toolset, skill_name, tool_context.invocation_id)
        if isinstance(skill, dict):
            return None
        content = resource_content(skill, file_path)
        if not isinstance(content, bytes):
            return None
        mime_type = mimetypes.guess_type(file_path)[0] or "application/octet-stream"
        return types.Content(
            role="user",
            parts=[
                types.Part(text=f"The content of binary file {file_path!r} is:"),
                types.Part(inline_data=types.Blob(data=content, mime_type=mime_type)),
            ],
        )


def not_found(
    tool_context: ToolContext, kind: str, skill_name: str, file_path: str, looking_up: str
) -> dict[str, Any]:
    """A missing ``kind`` of file ("resource", "script"); from the second on, stop guessing.

    From the second miss of a kind in one invocation on, the answer tells the model to stop
    looking (``looking_up`` says for what: "skill files", "scripts"). The count is a
    ``temp:`` key of each kind: it lives for this invocation only and is never stored.
    """
    key = f"temp:_adk_skill_{kind}_not_found_count_{tool_context.invocation_id}"
    count = int(tool_context.state.get(key) or 0) + 1
    tool_context.state[key] = count
    code = f"{kind.upper()}_NOT_FOUND"
    message = f"{kind.capitalize()} {file_path!r} not found in skill {skill_name!r}."
    if count > 1:
        return failure(
            f"{code}_FATAL",
            f"{message} That makes failure #{count} looking up {looking_up} in this turn. Do "
            "not retry with another path: stop, and tell the user what is missing.",
        )
    return failure(code, message)
