"""ComputerUseToolset: a computer's actions offered to a Gemini computer-use model."""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import threading
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from google.genai import types

from adk_runtime.core.base_tool import BaseTool
from adk_runtime.core.base_toolset import BaseToolset
from adk_runtime.core.tool_context import ToolContext
from adk_runtime.tools.computer_use import _actions
from adk_runtime.tools.computer_use._navigation import UrlRefusedError, check_url
from adk_runtime.tools.computer_use.base_computer import BaseComputer, ComputerState
from adk_runtime.tools.computer_use.computer_use_tool import (
    ComputerUseTool,
    state_response,
    with_screenshots_as_parts,
)

if TYPE_CHECKING:
    from adk_runtime.core.readonly_context import ReadonlyContext
    from adk_runtime.models.llm_request import LlmRequest

__all__ = ["EXCLUDED_METHODS", "ComputerUseToolset"]

logger = logging.getLogger(__name__)

EXCLUDED_METHODS = frozenset(
    {"screen_size", "environment", "initialize", "close", "prepare", "type_text"}
)
"""``BaseComputer`` methods that are never offered to the model as actions."""

Adapter = Callable[[Callable[..., Any]], Callable[..., Any] | Awaitable[Callable[..., Any]]]
"""Takes an action's function and returns (or resolves to) the function to use instead."""


class _LoopLocks:
    """One ``asyncio.Lock`` per event loop (``Runner.run`` drives its own loop in a thread).

    Copies and pickles start with no locks.
    """

    def __init__(self) -> None:
        self._locks: dict[asyncio.AbstractEventLoop, asyncio.Lock] = {}
        self._guard = threading.Lock()

    def __reduce__(self) -> tuple[type[_LoopLocks], tuple[()]]:
        return (_LoopLocks, ())

    def get(self) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        with self._guard:
            lock = self._locks.get(loop)
            if lock is None:
                for closed in [known for known in self._locks if known.is_closed()]:
                    del self._locks[closed]
                lock = self._locks[loop] = asyncio.Lock()
            return lock


class ComputerUseToolset(BaseToolset):
    """Offers a :class:`BaseComputer`'s actions to the model, with Gemini computer use.

    Before each model call the request gets Gemini's computer-use tool
    (``types.Tool(computer_use=...)``, with the computer's environment and the actions
    left out, named as that model version names them), and the actions are registered
    as the tools that answer the model's calls: the ``BaseComputer`` methods under their
    names (Gemini 2.x, plus ``wait_5_seconds``) and Gemini 3.x's ``click``, ``move``,
    ``type``, ``scroll``, ``take_screenshot``, ``press_key``, ``hotkey`` and the optional
    actions the computer defines. The screenshot of every action reaches the model as an
    image part of the function response.

    The computer is initialized before the first action and closed by :meth:`close`
    (``Runner.close()``). Actions on the computer run one at a time (also when the model
    asks for several at once, and across sessions sharing the toolset), each after
    ``computer.prepare(tool_context)``. ``navigate`` opens public http(s) urls only,
    unless ``allow_private_network_access``.
    """

    def __init__(
        self,
        *,
        computer: BaseComputer,
        excluded_predefined_functions: list[str] | None = None,
        allow_private_network_access: bool = False,
    ) -> None:
        """Offer ``computer``'s actions.

        Args:
            computer: The computer the model operates.
            excluded_predefined_functions: Actions not to offer, by their Gemini 2.x
                (``click_at``) or Gemini 3.x (``click``) name; the counterpart is left out
                too.
            allow_private_network_access: Let ``navigate`` open urls of loopback, private
                and link-local hosts (a browser on the intranet or on localhost).
        """
        super().__init__()
        self._computer = computer
        self._excluded_predefined_functions = (
            None if excluded_predefined_functions is None else list(excluded_predefined_functions)
        )
        self._allow_private_network_access = allow_private_network_access
        self._initialized = False
        self._closed = False
        self._tools: list[BaseTool] | None = None
        self._init_locks = _LoopLocks()
        self._action_locks = _LoopLocks()

    def __getstate__(self) -> dict[str, Any]:
        """A copy starts over: not initialized, no tools built (they hold this instance)."""
        state = dict(self.__dict__)
        state.update(
            _initialized=False,
            _closed=False,
            _tools=None,
            _cached_prefixed_tools=None,
            _cached_invocation_id=None,
        )
        return state

    async def _ensure_initialized(self) -> None:
        """Initialize the computer once."""
        if self._initialized:
            return
        async with self._init_locks.get():
            if not self._initialized:
                await self._computer.initialize()
                self._initialized = True
                self._closed = False

    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        """The actions, as :class:`ComputerUseTool`; built once, after initializing the computer.

        Raises:
            Exception: What ``initialize()`` or ``screen_size()`` of the computer raised.
        """
        tools = await self._all_tools()
        if not self.tool_filter:
            return tools
        return [tool for tool in tools if self._is_tool_selected(tool, readonly_context)]

    async def _all_tools(self) -> list[BaseTool]:
        if self._tools is not None:
            return self._tools
        await self._ensure_initialized()
        async with self._init_locks.get():
            if self._tools is None:
                screen_size = await self._computer.screen_size()
                self._tools = [
                    ComputerUseTool(func=self._bound(func, name), screen_size=screen_size)
                    for name, func in self._actions()
                ]
            return self._tools

    def _actions(self) -> list[_actions.Action]:
        excluded = _actions.local_exclusions(self._excluded_predefined_functions or ())
        wait, wait_5_seconds = _actions.waits(self._computer)
        found: list[_actions.Action] = []
        for name in _actions.COMPUTER_ACTIONS:
            if name in excluded:
                continue
            func: Callable[..., Any] = getattr(self._computer, name)
            if name == "wait":
                func = wait
            elif name == "navigate" and not self._allow_private_network_access:
                func = self._checked_navigate(func)
            found.append((name, func))
        if "wait_5_seconds" not in excluded:
            found.append(("wait_5_seconds", wait_5_seconds))
        return found + _actions.newer_actions(self._computer, excluded)

    def _checked_navigate(self, navigate: Callable[..., Any]) -> Callable[..., Any]:
        """``navigate`` that refuses urls of hosts that are not public."""
        computer = self._computer

        async def checked(url: str, *args: Any, **kwargs: Any) -> Any:
            try:
                await check_url(url)
            except UrlRefusedError as exc:
                logger.warning("navigate() refused a url: %s.", exc)
                state: ComputerState = await computer.current_state()
                return {
                    "error": (
                        f"The url was not opened ({exc}): only public http(s) sites may be "
                        "opened. The page shown has not changed."
                    ),
                    **state_response(state),
                }
            return await navigate(url, *args, **kwargs)

        functools.update_wrapper(checked, navigate)
        return checked

    def _bound(self, func: Callable[..., Any], name: str) -> Callable[..., Any]:
        """``func`` run alone on the computer, after ``prepare``; it takes ``tool_context``."""
        computer, locks = self._computer, self._action_locks
        signature = inspect.signature(func)
        by_name = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        context = signature.parameters.get("tool_context")
        forwards = context is not None and context.kind in by_name

        async def action(*args: Any, tool_context: ToolContext | None = None, **kwargs: Any) -> Any:
            async with locks.get():
                if tool_context is not None:
                    await computer.prepare(tool_context)
                if forwards:
                    kwargs["tool_context"] = tool_context
                return await func(*args, **kwargs)

        functools.update_wrapper(action, func)
        action.__name__ = action.__qualname__ = name
        params = [p for p in signature.parameters.values() if p.name != "tool_context"]
        rest = [p for p in params if p.kind is not inspect.Parameter.VAR_KEYWORD]
        extra = [p for p in params if p.kind is inspect.Parameter.VAR_KEYWORD]
        tool_context = inspect.Parameter(
            "tool_context", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=ToolContext
        )
        action.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=[*rest, tool_context, *extra]
        )
        return action

    async def close(self) -> None:
        """Close the computer (once); the toolset initializes it again if used after."""
        async with self._init_locks.get():
            if not self._closed:
                await self._computer.close()
                self._closed = True
            self._initialized = False
            self._tools = None
            self._cached_prefixed_tools = None
            self._cached_invocation_id = None
        await super().close()

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Register the actions, show past screenshots as images, declare computer use.

        Raises:
            Exception: What the computer raised (``initialize``, ``screen_size``,
                ``environment``): the model call does not happen.
        """
        tools = await self.get_tools(tool_context)
        for tool in tools:
            llm_request.tools_dict[tool.name] = tool
        names = {tool.name for tool in self._tools or tools}
        llm_request.contents = with_screenshots_as_parts(llm_request.contents, names)
        config = llm_request.config
        config.tools = list(config.tools or [])
        if any(isinstance(t, types.Tool) and t.computer_use for t in config.tools):
            return
        environment = await self._computer.environment()
        excluded = _actions.request_exclusions(
            self._excluded_predefined_functions,
            llm_request.model,
            _actions.unimplemented_optional_actions(self._computer),
        )
        declared = types.Environment.__members__.get(
            environment.name, types.Environment.ENVIRONMENT_BROWSER
        )
        config.tools.append(
            types.Tool(
                computer_use=types.ComputerUse(
                    environment=declared, excluded_predefined_functions=excluded
                )
            )
        )

    @staticmethod
    async def adapt_computer_use_tool(
        method_name: str, adapter_func: Adapter, llm_request: LlmRequest
    ) -> None:
        """Replace the action ``method_name`` of the request by ``adapter_func``'s version.

        ``adapter_func`` gets the action's function and returns the new one (it may be a
        coroutine function); the new function's ``__name__`` is the new tool's name, and
        the tool keeps the screen sizes of the one it replaces. A method that is not an
        action of ``BaseComputer``, or one the request does not offer, is left as it is
        (with a warning).

        Args:
            method_name: The ``BaseComputer`` method, e.g. ``"wait"``.
            adapter_func: Makes the new function out of the old.
            llm_request: The request whose ``tools_dict`` holds the action.
        """
        known = callable(getattr(BaseComputer, method_name, None))
        if method_name.startswith("_") or method_name in EXCLUDED_METHODS or not known:
            logger.warning("%s is not an action of BaseComputer; nothing adapted.", method_name)
            return
        original = llm_request.tools_dict.get(method_name)
        if not isinstance(original, ComputerUseTool):
            logger.warning("The request offers no action %s; nothing adapted.", method_name)
            return
        adapted = adapter_func(original.func)
        if inspect.isawaitable(adapted):
            adapted = await adapted
        tool = ComputerUseTool(
            func=adapted,
            screen_size=original._screen_size,
            virtual_screen_size=original._coordinate_space,
        )
        if tool.name != method_name:
            del llm_request.tools_dict[method_name]
        llm_request.tools_dict[tool.name] = tool
