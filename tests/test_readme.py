"""README.md is the front door: short, and every link in it leads somewhere.

Its code blocks run in tests/test_docs_examples.py with the rest of the documentation.
"""

from __future__ import annotations

import re

from tests.serving import ROOT

README = ROOT / "README.md"
MAX_LINES = 250

_LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")


def relative_links(text: str) -> list[str]:
    """The link targets of ``text`` that are paths in the repository (no URL, no anchor-only)."""
    targets = (match["target"] for match in _LINK.finditer(text))
    return [t for t in targets if not re.match(r"[a-z]+:", t) and not t.startswith("#")]


def test_the_readme_stays_short() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines; the rest goes in docs/"


def test_every_relative_link_of_the_readme_names_a_file_of_the_repository() -> None:
    links = relative_links(README.read_text(encoding="utf-8"))
    assert len(links) >= 20  # the map of the docs
    missing = [link for link in links if not (ROOT / link.partition("#")[0]).is_file()]
    assert missing == []


def test_links_are_told_from_urls_and_anchors() -> None:
    text = "[a](docs/x.md) [b](https://example.com) [c](#top) [d](LICENSE) [e](docs/y.md#z)"
    assert relative_links(text) == ["docs/x.md", "LICENSE", "docs/y.md#z"]
