"""Every "contract §N" (or "contract §N.M") the code cites exists in docs/explanation/contract.md.

The contract page numbers its sections (``## §4 Sessions``) and its items (``4.3 **Stale
writers fail closed…**``); docstrings and comments point at those numbers. Renumbering the
page without updating the code, or citing a number the page does not have, fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = ROOT / "docs" / "explanation" / "contract.md"
_CITATION = re.compile(r"contract §(\d+)(?:\.(\d+))?")
_SECTION = re.compile(r"^## §(\d+) \S", re.M)
_ITEM = re.compile(r"^(\d+)\.(\d+) \*\*", re.M)


def _numbers(text: str) -> set[str]:
    sections = {match[1] for match in _SECTION.finditer(text)}
    items = {f"{match[1]}.{match[2]}" for match in _ITEM.finditer(text)}
    return sections | items


def _citations(paths: list[Path]) -> dict[str, list[str]]:
    cited: dict[str, list[str]] = {}
    for path in paths:
        text = path.read_text(encoding="utf-8")
        for match in _CITATION.finditer(text):
            number = match[1] if match[2] is None else f"{match[1]}.{match[2]}"
            line = text.count("\n", 0, match.start()) + 1
            cited.setdefault(number, []).append(f"{path.relative_to(ROOT)}:{line}")
    return cited


def test_the_contract_numbers_its_sections_and_items_in_order() -> None:
    text = CONTRACT.read_text(encoding="utf-8")
    sections = [int(match[1]) for match in _SECTION.finditer(text)]
    assert sections == list(range(1, len(sections) + 1))
    for section in sections:
        body = text.split(f"## §{section} ", 1)[1].split("\n## ", 1)[0]
        items = [int(match[2]) for match in _ITEM.finditer(body) if int(match[1]) == section]
        assert items == list(range(1, len(items) + 1)), f"§{section}: items {items}"
        assert all(int(match[1]) == section for match in _ITEM.finditer(body)), f"§{section}"


def test_every_citation_in_the_code_and_tests_names_a_number_the_contract_has() -> None:
    files = sorted((ROOT / "adk_runtime").rglob("*.py")) + sorted((ROOT / "tests").rglob("*.py"))
    cited = _citations([path for path in files if path != Path(__file__).resolve()])
    assert cited, "the code cites the contract by number"
    numbers = _numbers(CONTRACT.read_text(encoding="utf-8"))
    missing = {number: where for number, where in cited.items() if number not in numbers}
    assert not missing, f"cited but not in {CONTRACT.relative_to(ROOT)}: {missing}"


def test_a_citation_of_a_number_the_page_lacks_is_told_apart() -> None:
    numbers = _numbers("## §1 Scope\n\n1.1 **One.** Text.\n\n## §2 Loop\n\n2.1 **Two.**\n")
    assert numbers == {"1", "2", "1.1", "2.1"}
    cited = {
        m[1] if m[2] is None else f"{m[1]}.{m[2]}"
        for m in _CITATION.finditer(
            "Kept here: contract §2.1, contract §3 and contract §1.7; see contract §1."
        )
    }
    assert cited - numbers == {"3", "1.7"}
