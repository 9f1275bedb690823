"""google-adk's Cloud Storage skill loaders: present so that code naming them imports.

adk_runtime has no Google Cloud Storage client (see the parity list); each of these raises
:class:`~adk_runtime.errors.ConfigurationError` saying so. Load the skills from a local
directory instead (copy them out of the bucket first).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

from adk_runtime.errors import ConfigurationError
from adk_runtime.skills import models

__all__ = [
    "_list_skills_in_gcs_dir",
    "_list_skills_in_gcs_dir_async",
    "_load_skill_from_gcs_dir",
    "_load_skill_from_gcs_dir_async",
]

_REFUSAL = (
    "Loading skills from Google Cloud Storage is not supported by adk_runtime; copy the "
    "skills to a local directory and use load_skill_from_dir / load_skills_from_dir."
)


def _refuse() -> NoReturn:
    raise ConfigurationError(_REFUSAL)


def _list_skills_in_gcs_dir(
    bucket_name: str,
    skills_base_path: str = "",
    project_id: str | None = None,
    credentials: Any = None,
    on_error: Callable[[str, Exception], None] | None = None,
) -> dict[str, models.Frontmatter]:
    """Not supported: raises ``ConfigurationError``."""
    _refuse()


def _load_skill_from_gcs_dir(
    bucket_name: str,
    skill_id: str,
    skills_base_path: str = "",
    project_id: str | None = None,
    credentials: Any = None,
) -> models.Skill:
    """Not supported: raises ``ConfigurationError``."""
    _refuse()


async def _list_skills_in_gcs_dir_async(
    bucket_name: str,
    skills_base_path: str = "",
    project_id: str | None = None,
    credentials: Any = None,
    on_error: Callable[[str, Exception], None] | None = None,
) -> dict[str, models.Frontmatter]:
    """Not supported: raises ``ConfigurationError``."""
    _refuse()


async def _load_skill_from_gcs_dir_async(
    bucket_name: str,
    skill_id: str,
    skills_base_path: str = "",
    project_id: str | None = None,
    credentials: Any = None,
) -> models.Skill:
    """Not supported: raises ``ConfigurationError``."""
    _refuse()
