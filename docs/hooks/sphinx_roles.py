"""A griffe extension for the API pages: Sphinx cross-reference roles become code spans.

The docstrings name other objects the Sphinx way (``:class:`Session```, ``:meth:`~.close```),
which mkdocstrings' Google-style parser shows as literal text. This rewrites each role to the
name it targets, as inline code, before the page is rendered (``~`` and a leading ``.`` are
Sphinx's "show only the last part" and "relative" markers, so they go too).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:class|func|meth|attr|data|mod|exc|obj|const):`(?P<target>[^`]+)`")


def plain(text: str) -> str:
    """``text`` with each Sphinx role written as inline code naming its target."""

    def code(match: re.Match[str]) -> str:
        target = match["target"].lstrip("~").lstrip(".")
        if match["target"].startswith("~"):
            target = target.rsplit(".", 1)[-1]
        return f"`{target}`"

    return ROLE.sub(code, text)


class SphinxRoles(griffe.Extension):
    """Rewrites the docstring of every object griffe loads."""

    def on_instance(self, *, node: Any, obj: griffe.Object, agent: Any, **kwargs: Any) -> None:
        """Rewrite ``obj``'s docstring, if it has one."""
        if obj.docstring is not None:
            obj.docstring.value = plain(obj.docstring.value)
