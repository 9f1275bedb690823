"""The system instruction that teaches the model to use the skill tools.

It lives here, below the tools, so that ``adk_runtime.skills`` and ``adk_runtime.skills.prompt``
can both export :data:`DEFAULT_SKILL_SYSTEM_INSTRUCTION` (as google-adk does, where those
paths are deprecated in favour of ``tools.skill_toolset``) without importing the tools.
"""

from __future__ import annotations

from collections.abc import Collection

__all__ = [
    "DEFAULT_SKILL_SYSTEM_INSTRUCTION",
    "LIST_SKILLS",
    "LOAD_SKILL",
    "LOAD_SKILL_RESOURCE",
    "RUN_SKILL_SCRIPT",
    "SEARCH_SKILLS",
    "UNLOAD_SKILL",
    "build_skill_system_instruction",
]

LIST_SKILLS = "list_skills"
SEARCH_SKILLS = "search_skills"
LOAD_SKILL = "load_skill"
UNLOAD_SKILL = "unload_skill"
LOAD_SKILL_RESOURCE = "load_skill_resource"
RUN_SKILL_SCRIPT = "run_skill_script"


def build_skill_system_instruction(
    *,
    prefix: str | None = None,
    allowed_tools: Collection[str] | None = None,
    script_execution_enabled: bool = True,
    unload_enabled: bool = False,
) -> str:
    """The guidance on skills added to the system instruction.

    Args:
        prefix: The toolset's tool name prefix (tools are called ``<prefix>_<name>``).
        allowed_tools: The skill tools offered after filtering; the others are named as not
            available. None: all of them.
        script_execution_enabled: Whether ``run_skill_script`` is offered.
        unload_enabled: Whether ``unload_skill`` is offered.

    Returns:
        The instruction text.
    """
    p = f"{prefix}_" if prefix else ""
    load, resource, script = (
        f"{p}{LOAD_SKILL}",
        f"{p}{LOAD_SKILL_RESOURCE}",
        f"{p}{RUN_SKILL_SCRIPT}",
    )
    rules = [
        f"Before working on a request that one of the skills covers, call `{load}` with its "
        "`skill_name` and read what it returns.",
        "Then carry out the skill's instructions, all of their steps in the order given, "
        "before you answer.",
        f"Read a file that belongs to a skill with `{resource}` and a path starting with "
        "`references/`, `assets/` or `scripts/`. Use it only for the skill's own files, never "
        "for files the user gives you.",
    ]
    if script_execution_enabled:
        rules.append(
            f"Run a file of a skill's `scripts/` folder with `{script}`; read it first with "
            f"`{resource}` when you need to know what it does."
        )
    rules.append(
        "When a skill tool answers with an error, do not guess other names or paths: tell the "
        "user what failed and stop."
    )
    rules.append(
        f"`{load}` only gives you the instructions: loading a skill does NOT complete your "
        "turn. Keep going in the same turn: make the calls the skill asks for, then write your "
        "answer. Never end a turn with an empty response right after loading a skill."
    )
    if unload_enabled:
        rules.append(
            f"When a skill's task is done, you may call `{p}{UNLOAD_SKILL}` with its name to "
            "release it and the tools it added; load it again if you need it later."
        )
    folders = (
        "- `SKILL.md`: its description and its instructions.\n"
        "- `references/` (optional): more documentation and examples.\n"
        "- `assets/` (optional): templates, data and other files it works with.\n"
    )
    folders += (
        "- `scripts/` (optional): programs you can run.\n"
        if script_execution_enabled
        else f"- `scripts/` (optional): programs you cannot run here; read them with "
        f"`{resource}` and follow them yourself.\n"
    )
    text = (
        "You have skills: packaged instructions and files for specialised tasks, used through "
        "the skill tools only. Each skill is a folder with:\n"
        + folders
        + "\nRules for skills:\n"
        + "".join(f"{number}. {rule}\n" for number, rule in enumerate(rules, 1))
    )
    if allowed_tools is not None:
        candidates = [RUN_SKILL_SCRIPT, LOAD_SKILL_RESOURCE, LOAD_SKILL, LIST_SKILLS]
        if unload_enabled:
            candidates.append(UNLOAD_SKILL)
        missing = [f"`{p}{name}`" for name in candidates if name not in allowed_tools]
        if missing:
            text += (
                f"\nThese skill tools are not available here: {', '.join(missing)}. Do not "
                "call them. Apply the skill instructions you have and answer in plain text, "
                "never inside a tool call.\n"
            )
    return text


DEFAULT_SKILL_SYSTEM_INSTRUCTION = build_skill_system_instruction()
"""The guidance with every skill tool but ``unload_skill`` offered, without a prefix."""
