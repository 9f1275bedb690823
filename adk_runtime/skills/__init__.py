"""Agent Skills (``google.adk.skills`` → ``adk_runtime.skills``).

A skill is a directory with ``SKILL.md`` (YAML front matter, then markdown instructions) and
optional ``references/``, ``assets/`` and ``scripts/`` folders. Load skills with
:func:`load_skill_from_dir` / :func:`load_skills_from_dir` (or their ``_async`` variants,
which keep file I/O off the event loop) and give them to
``adk_runtime.tools.skill_toolset.SkillToolset``.

A skill directory is untrusted input: files leaving it (``..``, symlinks pointing outside),
files that are not regular files and files over the size limits are refused with typed errors
(:mod:`adk_runtime.skills.errors`), and nothing is executed on load. The Cloud Storage loaders
exist so that code naming them imports; they raise ``ConfigurationError``.
"""

from adk_runtime.skills._instruction import DEFAULT_SKILL_SYSTEM_INSTRUCTION
from adk_runtime.skills._utils import _list_skills_in_dir as list_skills_in_dir
from adk_runtime.skills._utils import _list_skills_in_dir_async as list_skills_in_dir_async
from adk_runtime.skills._utils import _list_skills_in_gcs_dir as list_skills_in_gcs_dir
from adk_runtime.skills._utils import (
    _list_skills_in_gcs_dir_async as list_skills_in_gcs_dir_async,
)
from adk_runtime.skills._utils import _load_skill_from_dir as load_skill_from_dir
from adk_runtime.skills._utils import _load_skill_from_dir_async as load_skill_from_dir_async
from adk_runtime.skills._utils import _load_skill_from_gcs_dir as load_skill_from_gcs_dir
from adk_runtime.skills._utils import (
    _load_skill_from_gcs_dir_async as load_skill_from_gcs_dir_async,
)
from adk_runtime.skills._utils import _load_skills_from_dir as load_skills_from_dir
from adk_runtime.skills._utils import _load_skills_from_dir_async as load_skills_from_dir_async
from adk_runtime.skills.errors import (
    InvalidSkillError,
    SkillLoadError,
    SkillNotFoundError,
    SkillTooLargeError,
    UnsafeSkillPathError,
)
from adk_runtime.skills.models import Frontmatter, Resources, Script, Skill
from adk_runtime.skills.skill_registry import SkillRegistry

__all__ = [
    "DEFAULT_SKILL_SYSTEM_INSTRUCTION",
    "Frontmatter",
    "InvalidSkillError",
    "Resources",
    "Script",
    "Skill",
    "SkillLoadError",
    "SkillNotFoundError",
    "SkillRegistry",
    "SkillTooLargeError",
    "UnsafeSkillPathError",
    "list_skills_in_dir",
    "list_skills_in_dir_async",
    "list_skills_in_gcs_dir",
    "list_skills_in_gcs_dir_async",
    "load_skill_from_dir",
    "load_skill_from_dir_async",
    "load_skill_from_gcs_dir",
    "load_skill_from_gcs_dir_async",
    "load_skills_from_dir",
    "load_skills_from_dir_async",
]
