"""Every public google-adk module path in our areas exists here with its names, or is listed.

google-adk's source is read, never imported (see ``adk_reference``). A gap that is not in
``omissions.OMITTED`` fails, and so does an entry there that is no longer a gap; a missing
google-adk reference fails too (``make install`` puts it in ``.venv/adk-reference``).
"""

from __future__ import annotations

import importlib
import warnings
from types import ModuleType

import pytest

from tests.parity.adk_reference import REPO, RefModule, reference_modules
from tests.parity.omissions import AREAS, OMITTED, PRESENT_ON_PURPOSE, parity_table

PARITY_PAGE = REPO / "docs" / "reference" / "parity.md"
TABLE_START = "<!-- parity-table:start (python -m tests.parity.omissions) -->"
TABLE_END = "<!-- parity-table:end -->"


def _ours(path: str) -> ModuleType | None:
    try:
        with warnings.catch_warnings():  # a moved module's deprecation warning: still present
            warnings.simplefilter("ignore", DeprecationWarning)
            return importlib.import_module(f"adk_runtime.{path}" if path else "adk_runtime")
    except ModuleNotFoundError as exc:
        if exc.name is not None and f"adk_runtime.{path}".startswith(exc.name):
            return None
        raise


def _omitted_module(path: str) -> str | None:
    parts = path.split(".")
    for end in range(len(parts), 0, -1):
        key = ".".join(parts[:end])
        if key in OMITTED:
            return key
    return None


def _gaps(modules: list[RefModule]) -> tuple[list[str], set[str]]:
    """The gaps not listed, and the listed entries that matched a gap."""
    unlisted: list[str] = []
    used: set[str] = set()
    for module in modules:
        listed = _omitted_module(module.path)
        ours = _ours(module.path)
        if listed is not None:
            # The entry still stands for a gap only while the module (or one of its names) is
            # missing here; one whose modules are all here now is reported as stale.
            present = ours is not None and all(hasattr(ours, name) for name in module.names)
            if not present or OMITTED[listed] in PRESENT_ON_PURPOSE:
                used.add(listed)
            continue
        if ours is None:
            unlisted.append(f"module google.adk.{module.path} (names: {sorted(module.names)})")
            continue
        for name in sorted(module.names):
            key = f"{module.path}:{name}"
            if hasattr(ours, name):
                continue
            if key in OMITTED:
                used.add(key)
            else:
                unlisted.append(".".join(filter(None, ("google.adk", module.path, name))))
    return unlisted, used


@pytest.fixture(scope="module")
def modules() -> list[RefModule]:
    return list(reference_modules(AREAS))


def test_the_reference_is_google_adk_itself(modules: list[RefModule]) -> None:
    paths = {m.path for m in modules}
    assert {"", "sessions.base_session_service", "tools.tool_context", "runners"} <= paths
    [package] = [m for m in modules if m.path == ""]
    assert {"Agent", "Event", "Runner"} <= package.names
    assert len(modules) > 200  # the walk found the package, not a stray file


def test_every_google_adk_name_exists_here_or_is_listed(modules: list[RefModule]) -> None:
    unlisted, _ = _gaps(modules)
    assert not unlisted, (
        "google-adk names missing from adk_runtime; add them (a re-export at the same path) "
        "or list them with a reason in tests/parity/omissions.py:\n" + "\n".join(unlisted)
    )


def test_every_listed_omission_is_still_missing(modules: list[RefModule]) -> None:
    _, used = _gaps(modules)
    stale = sorted(set(OMITTED) - used)
    assert not stale, f"listed as missing but present (or gone from google-adk): {stale}"


def test_the_parity_page_table_is_rendered_from_the_list() -> None:
    text = PARITY_PAGE.read_text(encoding="utf-8")
    start, end = text.index(TABLE_START) + len(TABLE_START), text.index(TABLE_END)
    assert text[start:end].strip() == parity_table(), (
        "the parity table of docs/reference/parity.md is stale: paste the output of "
        "`python -m tests.parity.omissions` between its parity-table markers"
    )


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("sessions.base_session_service", "GetSessionConfig"),
        ("sessions.in_memory_session_service", "InMemorySessionService"),
        ("memory.in_memory_memory_service", "InMemoryMemoryService"),
        ("artifacts.in_memory_artifact_service", "InMemoryArtifactService"),
        ("tools.tool_context", "ToolContext"),
    ],
)
def test_paths_users_import_name_the_package_level_objects(path: str, name: str) -> None:
    package = importlib.import_module(f"adk_runtime.{path.split('.')[0]}")
    assert getattr(importlib.import_module(f"adk_runtime.{path}"), name) is getattr(package, name)
