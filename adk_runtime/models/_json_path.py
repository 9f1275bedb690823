"""The JSONPath subset streamed function-call arguments are addressed with.

Gemini streams a function call's arguments as ``PartialArg`` pieces, each naming the value
it belongs to with a JSONPath such as ``$.location``, ``$.stops[2].city`` or
``$['odd key']``. Only member and index steps occur; filters and wildcards never do.
"""

from __future__ import annotations

import re
from itertools import pairwise
from typing import Any, cast

__all__ = ["MAX_INDEX", "get_path", "parse_path", "set_path"]

MAX_INDEX = 10_000
"""The largest list index a path may write (a bound on what one chunk can allocate)."""

_STEP = re.compile(
    r"""
    \[\s*(?P<index>\d+)\s*\]                  # [3]
    | \[\s*'(?P<single>(?:[^'\\]|\\.)*)'\s*\] # ['key']
    | \[\s*"(?P<double>(?:[^"\\]|\\.)*)"\s*\] # ["key"]
    | \.?(?P<bare>(?:[^.\[\]\\]|\\.)+)        # .key or key
    """,
    re.VERBOSE,
)
_ESCAPE = re.compile(r"\\(?:u(?P<hex>[0-9a-fA-F]{4})|(?P<char>.))")
_CONTROL = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f"}

Step = str | int


def _unescape(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        if match["hex"] is not None:
            return chr(int(match["hex"], 16))
        return _CONTROL.get(match["char"], match["char"])

    return _ESCAPE.sub(one, text) if "\\" in text else text


def parse_path(path: str) -> list[Step]:
    """The steps of ``path``: member names as strings, list indexes as ints.

    Args:
        path: A JSONPath rooted at ``$`` (the root may be left out).

    Returns:
        The steps from the root, e.g. ``["stops", 2, "city"]`` for ``$.stops[2].city``.
    """
    body = path[1:] if path.startswith("$") else path
    steps: list[Step] = []
    for match in _STEP.finditer(body):
        if match["index"] is not None:
            steps.append(int(match["index"]))
            continue
        key = next(match[g] for g in ("single", "double", "bare") if match[g] is not None)
        steps.append(_unescape(key))
    return steps


def get_path(root: Any, steps: list[Step]) -> tuple[Any, bool]:
    """The value at ``steps`` under ``root``, and whether there is one."""
    current = root
    for step in steps:
        if isinstance(step, int):
            if not isinstance(current, list) or step >= len(current):
                return None, False
            current = current[step]
        else:
            if not isinstance(current, dict) or step not in current:
                return None, False
            current = cast("dict[str, Any]", current)[step]
    return current, True


def set_path(root: dict[str, Any], steps: list[Step], value: Any) -> None:
    """Write ``value`` at ``steps`` under ``root``, making the dicts and lists on the way.

    A step that does not fit what is already there (an index into a dict, a key into a
    list) or an index over :data:`MAX_INDEX` writes nothing.
    """
    if not steps:
        return
    container: Any = root
    for step, following in pairwise(steps):
        child = _slot(container, step)
        if child is _MISSING:
            return
        if child is None:
            child = [] if isinstance(following, int) else {}
            _store(container, step, child)
        container = child
    if _slot(container, steps[-1]) is not _MISSING:
        _store(container, steps[-1], value)


_MISSING: Any = object()


def _slot(container: Any, step: Step) -> Any:
    """What ``container`` holds at ``step`` (None: free to fill), or ``_MISSING`` if unfit."""
    if isinstance(step, int):
        if not isinstance(container, list) or step > MAX_INDEX:
            return _MISSING
        return container[step] if step < len(container) else None
    if not isinstance(container, dict):
        return _MISSING
    return container.get(step)


def _store(container: Any, step: Step, value: Any) -> None:
    if isinstance(step, int):
        container.extend([None] * (step + 1 - len(container)))
    container[step] = value
