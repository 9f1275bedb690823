"""The actions of a computer under their Gemini names, and which of them are left out.

Gemini 2.x computer use calls the ``BaseComputer`` methods by their names (``click_at``,
``hover_at``, ``wait_5_seconds``...); Gemini 3.x calls newer ones (``click``, ``move``,
``type``, ``scroll``, ``take_screenshot``, ``press_key``, ``hotkey``, ``wait(seconds)``,
``drag_and_drop`` with ``start_*``/``end_*``, and optional ones such as ``double_click``).
The toolset offers both: a newer action the computer defines itself is used as it is, the
others are carried out with the ``BaseComputer`` methods. Leaving an action out by either
name leaves out its counterpart too, and the request names what is left out in the
spelling of the model it goes to.
"""

from __future__ import annotations

import inspect
import math
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from types import MappingProxyType
from typing import Any

from adk_runtime.tools.computer_use.base_computer import (
    BaseComputer,
    ComputerState,
    ScrollDirection,
)
from adk_runtime.utils.model_name_utils import extract_model_name

__all__ = [
    "COMPUTER_ACTIONS",
    "Action",
    "gemini_major",
    "implements",
    "local_exclusions",
    "newer_actions",
    "request_exclusions",
    "unimplemented_optional_actions",
    "waits",
]

Action = tuple[str, Callable[..., Any]]
"""A tool name and the coroutine function that carries the action out."""

COMPUTER_ACTIONS = (
    "open_web_browser",
    "click_at",
    "hover_at",
    "type_text_at",
    "scroll_document",
    "scroll_at",
    "wait",
    "go_back",
    "go_forward",
    "search",
    "navigate",
    "key_combination",
    "drag_and_drop",
    "current_state",
)
"""The ``BaseComputer`` methods offered under their own names."""

_OPTIONAL_MOUSE = (
    "double_click",
    "triple_click",
    "middle_click",
    "right_click",
    "mouse_down",
    "mouse_up",
)
_OPTIONAL_KEYS = ("key_down", "key_up")

_TO_NEWER: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "click_at": ("click",),
        "hover_at": ("move",),
        "type_text_at": ("type",),
        "type_text": ("type",),
        "scroll_at": ("scroll",),
        "scroll_document": (),  # Gemini 3 has no whole-page scroll
        "current_state": ("take_screenshot",),
        "key_combination": ("press_key", "hotkey"),
        "wait_5_seconds": ("wait",),
    }
)
_TO_OLDER: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "click": ("click_at",),
        "move": ("hover_at",),
        "type": ("type_text_at",),
        "scroll": ("scroll_at",),
        "take_screenshot": ("current_state",),
        "press_key": (),  # key_combination goes only with both press_key and hotkey
        "hotkey": (),
        "wait": ("wait_5_seconds",),
        **{name: () for name in (*_OPTIONAL_MOUSE, *_OPTIONAL_KEYS)},
    }
)
_TYPING = frozenset({"type", "type_text_at", "type_text"})
_KEYS = frozenset({"press_key", "hotkey"})
_GEMINI_VERSION = re.compile(r"^gemini-(\d+)(?:\.\d+)*(?:-|$)")

_Params = tuple[str, ...]
# The Gemini 3 actions a computer may define itself: required and optional parameters.
_STANDARD: tuple[tuple[str, _Params, _Params], ...] = (
    ("click", ("x", "y"), ("button",)),
    ("move", ("x", "y"), ()),
    ("type", ("text",), ("press_enter",)),
    ("scroll", ("x", "y", "direction"), ("magnitude_in_pixels",)),
    ("take_screenshot", (), ()),
    ("press_key", ("key",), ()),
    ("hotkey", ("keys",), ()),
)
_OPTIONAL: tuple[tuple[str, _Params, _Params], ...] = (
    *((name, ("x", "y"), ("button",)) for name in _OPTIONAL_MOUSE),
    *((name, ("key",), ()) for name in _OPTIONAL_KEYS),
)


def local_exclusions(names: Iterable[str]) -> set[str]:
    """The tool names to leave out for ``names``: each with its counterparts."""
    excluded = set(names)
    for name in list(excluded):
        excluded.update(_TO_NEWER.get(name, ()), _TO_OLDER.get(name, ()))
    if excluded & _TYPING:
        excluded |= _TYPING
    if excluded >= _KEYS:
        excluded.add("key_combination")
    return excluded


def gemini_major(model: str | None) -> int | None:
    """The major version of a ``gemini-N…`` model name; None for any other name."""
    if not model:
        return None
    match = _GEMINI_VERSION.match(extract_model_name(model))
    return int(match.group(1)) if match else None


def request_exclusions(
    names: list[str] | None, model: str | None, unimplemented: Iterable[str] = ()
) -> list[str] | None:
    """``names`` spelled for ``model``: Gemini 1/2 names for those, newer names otherwise.

    For Gemini 3 and later the optional actions the computer lacks (``unimplemented``)
    are left out too. A name without counterpart is kept; None stays None when nothing
    is to be left out.
    """
    major = gemini_major(model)
    resolved: list[str] = []
    if major is not None and major < 3:
        if names is None:
            return None
        for name in names:
            if name in _KEYS:
                if set(names) >= _KEYS:
                    resolved.append("key_combination")
            elif name == "type_text":
                resolved.append("type_text_at")
            elif name in _TO_OLDER:
                resolved.extend(_TO_OLDER[name])
            else:
                resolved.append(name)
    else:
        for name in names or ():
            resolved.extend(_TO_NEWER.get(name, (name,)))
        if major is not None:
            resolved.extend(unimplemented)
    unique = list(dict.fromkeys(resolved))
    return None if not unique and names is None else unique


def _returns_state(annotation: Any) -> bool:
    if annotation is inspect.Signature.empty or annotation is ComputerState:
        return True
    return isinstance(annotation, str) and annotation.rsplit(".", 1)[-1] == "ComputerState"


def implements(
    computer: BaseComputer, name: str, required: Collection[str], optional: Collection[str] = ()
) -> bool:
    """Whether the computer's class defines action ``name`` with a fitting signature.

    It must be a coroutine function returning a ``ComputerState``, taking ``required`` by
    keyword; any other parameter must have a default and be one of ``optional`` or
    ``tool_context`` (or be ``*args`` / ``**kwargs``).
    """
    method = getattr(type(computer), name, None)
    if not inspect.iscoroutinefunction(method):
        return False
    try:
        signature = inspect.signature(method)
    except (TypeError, ValueError):
        return False
    if not _returns_state(signature.return_annotation):
        return False
    params = [p for p in signature.parameters.values() if p.name != "self"]
    variadic = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
    named = {p.name for p in params if p.kind not in variadic}
    if not takes_any and not set(required) <= named:
        return False
    allowed = {*optional, "tool_context"}
    for param in params:
        if param.kind in variadic or param.name in required:
            continue
        if param.kind is inspect.Parameter.POSITIONAL_ONLY:
            return False
        if param.default is inspect.Parameter.empty or param.name not in allowed:
            return False
    return True


def unimplemented_optional_actions(computer: BaseComputer) -> list[str]:
    """The optional Gemini 3 actions the computer does not define."""
    missing = [
        name for name in _OPTIONAL_MOUSE if not implements(computer, name, ("x", "y"), ("button",))
    ]
    missing += [name for name in _OPTIONAL_KEYS if not implements(computer, name, ("key",))]
    return missing


def waits(computer: BaseComputer) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """``wait(seconds=1)`` (whole seconds, rounded up) and ``wait_5_seconds()``."""

    async def wait(seconds: float = 1) -> ComputerState:
        """Wait for the page to settle for the given number of seconds."""
        return await computer.wait(max(0, math.ceil(seconds)))

    async def wait_5_seconds() -> ComputerState:
        """Wait five seconds for the page to settle."""
        return await computer.wait(5)

    return wait, wait_5_seconds


def newer_actions(computer: BaseComputer, excluded: Collection[str]) -> list[Action]:
    """The Gemini 3 actions not in ``excluded``: the computer's own, else carried out.

    The optional ones (``double_click``...) are offered only when the computer defines them.
    """
    fallbacks = _fallbacks(computer)
    actions: list[Action] = []
    for name, required, optional in _STANDARD:
        if name not in excluded:
            own = implements(computer, name, required, optional)
            actions.append((name, getattr(computer, name) if own else fallbacks[name]))
    for name, required, optional in _OPTIONAL:
        if name not in excluded and implements(computer, name, required, optional):
            actions.append((name, getattr(computer, name)))
    return actions


def _fallbacks(computer: BaseComputer) -> dict[str, Callable[..., Any]]:
    """The Gemini 3 actions carried out with the ``BaseComputer`` methods, by name."""

    async def click(x: int, y: int) -> ComputerState:
        """Click at a point of the screen."""
        return await computer.click_at(x, y)

    async def move(x: int, y: int) -> ComputerState:
        """Move the mouse to a point of the screen."""
        return await computer.hover_at(x, y)

    async def type_text(text: str, press_enter: bool = False) -> ComputerState:
        """Type text where the keyboard focus is."""
        return await computer.type_text(text, press_enter=press_enter)

    async def scroll(
        x: int, y: int, direction: ScrollDirection = "down", magnitude_in_pixels: int = 300
    ) -> ComputerState:
        """Scroll the element under a point."""
        return await computer.scroll_at(x, y, direction, magnitude_in_pixels)

    async def take_screenshot() -> ComputerState:
        """Show the screen as it is now."""
        return await computer.current_state()

    async def press_key(key: str) -> ComputerState:
        """Press one key."""
        return await computer.key_combination([key])

    async def hotkey(keys: list[str]) -> ComputerState:
        """Press keys together."""
        return await computer.key_combination(keys)

    return {
        "click": click,
        "move": move,
        "type": type_text,
        "scroll": scroll,
        "take_screenshot": take_screenshot,
        "press_key": press_key,
        "hotkey": hotkey,
    }
