"""The computer a computer-use agent drives: the interface an application implements.

An application supplies a :class:`BaseComputer` (a Playwright browser, a remote sandbox, a
VM...). :class:`~adk_runtime.tools.computer_use.computer_use_toolset.ComputerUseToolset`
offers its actions to the model as tools; every action answers with a
:class:`ComputerState` (a PNG screenshot and the current url) that the model sees next.
"""

from __future__ import annotations

import abc
import enum
from typing import TYPE_CHECKING, Literal

import pydantic

if TYPE_CHECKING:
    from adk_runtime.core.tool_context import ToolContext

__all__ = ["BaseComputer", "ComputerEnvironment", "ComputerState", "ScrollDirection"]

ScrollDirection = Literal["up", "down", "left", "right"]
"""The directions an action may scroll in."""


class ComputerEnvironment(str, enum.Enum):
    """The kind of environment a computer is; the model is told it in the request."""

    ENVIRONMENT_UNSPECIFIED = "ENVIRONMENT_UNSPECIFIED"
    """No kind given: the model treats it as a browser."""
    ENVIRONMENT_BROWSER = "ENVIRONMENT_BROWSER"
    """A web browser."""


class ComputerState(pydantic.BaseModel):
    """What the screen shows after an action.

    Attributes:
        screenshot: The screen as PNG bytes; the model receives it as an image.
        url: The url of the page shown, when there is one.
    """

    screenshot: bytes | None = pydantic.Field(default=None, description="The screen as PNG.")
    url: str | None = pydantic.Field(default=None, description="The url of the page shown.")


class BaseComputer(abc.ABC):
    """A screen the model operates with mouse and keyboard actions.

    Coordinates passed to the actions are pixels of the real screen (:meth:`screen_size`):
    the toolset scales the model's coordinates (a 1000 x 1000 grid) before calling.
    Every action returns the :class:`ComputerState` after it.

    :meth:`initialize` runs once, before the first action; :meth:`close` when the toolset
    (``Runner.close()``) is closed; :meth:`prepare` before every action, with the call's
    ``ToolContext`` (to bind per-session resources kept in ``tool_context.state``). A
    subclass may also define the newer Gemini actions itself (``click(x, y)``,
    ``move(x, y)``, ``type(text, press_enter=False)``, ``scroll(x, y, direction,
    magnitude_in_pixels=300)``, ``take_screenshot()``, ``press_key(key)``,
    ``hotkey(keys)``, and optionally ``double_click``, ``triple_click``,
    ``middle_click``, ``right_click``, ``mouse_down``, ``mouse_up``, ``key_down``,
    ``key_up``); otherwise they are carried out with the methods below.
    """

    async def prepare(self, tool_context: ToolContext) -> None:  # noqa: B027 - optional hook
        """Get ready for the next action of the call ``tool_context`` answers; by default nothing.

        Args:
            tool_context: The call's context; its ``state`` persists with the session.
        """

    @abc.abstractmethod
    async def screen_size(self) -> tuple[int, int]:
        """The screen's size in pixels.

        Returns:
            ``(width, height)``.
        """

    @abc.abstractmethod
    async def open_web_browser(self) -> ComputerState:
        """Open the web browser.

        Returns:
            The state after the browser opened.
        """

    @abc.abstractmethod
    async def click_at(self, x: int, y: int) -> ComputerState:
        """Click at a point of the screen.

        Args:
            x: Horizontal position, in pixels from the left.
            y: Vertical position, in pixels from the top.

        Returns:
            The state after the click.
        """

    @abc.abstractmethod
    async def hover_at(self, x: int, y: int) -> ComputerState:
        """Move the mouse over a point, for instance to open a menu that shows on hover.

        Args:
            x: Horizontal position, in pixels from the left.
            y: Vertical position, in pixels from the top.

        Returns:
            The state after the move.
        """

    @abc.abstractmethod
    async def type_text_at(
        self,
        x: int,
        y: int,
        text: str,
        press_enter: bool = True,
        clear_before_typing: bool = True,
    ) -> ComputerState:
        """Click at a point and type text there.

        Args:
            x: Horizontal position, in pixels from the left.
            y: Vertical position, in pixels from the top.
            text: What to type.
            press_enter: Press Enter after typing.
            clear_before_typing: Empty the field before typing.

        Returns:
            The state after typing.
        """

    async def type_text(self, text: str, press_enter: bool = False) -> ComputerState:
        """Type text into whatever has the keyboard focus.

        This default presses each character with :meth:`key_combination` (then Enter),
        which costs one action, and usually one screenshot, per character; override it
        with the backend's own text input.

        Args:
            text: What to type.
            press_enter: Press Enter after typing.

        Returns:
            The state after typing.
        """
        keys = [*text, *(["Enter"] if press_enter else [])]
        state: ComputerState | None = None
        for key in keys:
            state = await self.key_combination([key])
        return state if state is not None else await self.current_state()

    @abc.abstractmethod
    async def scroll_document(self, direction: ScrollDirection) -> ComputerState:
        """Scroll the whole page.

        Args:
            direction: ``"up"``, ``"down"``, ``"left"`` or ``"right"``.

        Returns:
            The state after scrolling.
        """

    @abc.abstractmethod
    async def scroll_at(
        self, x: int, y: int, direction: ScrollDirection, magnitude: int
    ) -> ComputerState:
        """Scroll the element under a point.

        Args:
            x: Horizontal position, in pixels from the left.
            y: Vertical position, in pixels from the top.
            direction: ``"up"``, ``"down"``, ``"left"`` or ``"right"``.
            magnitude: How far to scroll, in pixels.

        Returns:
            The state after scrolling.
        """

    @abc.abstractmethod
    async def wait(self, seconds: int) -> ComputerState:
        """Let the page work (load, animate) for a while.

        Args:
            seconds: How long to wait.

        Returns:
            The state after waiting.
        """

    @abc.abstractmethod
    async def go_back(self) -> ComputerState:
        """Go to the previous page of the browser history.

        Returns:
            The state on that page.
        """

    @abc.abstractmethod
    async def go_forward(self) -> ComputerState:
        """Go to the next page of the browser history.

        Returns:
            The state on that page.
        """

    @abc.abstractmethod
    async def search(self) -> ComputerState:
        """Open a search engine's start page, to begin a new search.

        Returns:
            The state on the search page.
        """

    @abc.abstractmethod
    async def navigate(self, url: str) -> ComputerState:
        """Open a url.

        Args:
            url: The address to open.

        Returns:
            The state on that page.
        """

    @abc.abstractmethod
    async def key_combination(self, keys: list[str]) -> ComputerState:
        """Press keys together, such as ``["Control", "c"]``, or one key, such as ``["Enter"]``.

        Args:
            keys: The keys, held down together in order and released.

        Returns:
            The state after the key press.
        """

    @abc.abstractmethod
    async def drag_and_drop(
        self, x: int, y: int, destination_x: int, destination_y: int
    ) -> ComputerState:
        """Drag from one point and drop at another.

        Args:
            x: Horizontal start position, in pixels from the left.
            y: Vertical start position, in pixels from the top.
            destination_x: Horizontal drop position.
            destination_y: Vertical drop position.

        Returns:
            The state after the drop.
        """

    @abc.abstractmethod
    async def current_state(self) -> ComputerState:
        """The screen as it is now, without acting.

        Returns:
            The current state.
        """

    async def initialize(self) -> None:  # noqa: B027 - optional hook
        """Start the computer (launch the browser...); by default nothing."""

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Release the computer's resources; by default nothing."""

    @abc.abstractmethod
    async def environment(self) -> ComputerEnvironment:
        """The kind of environment this computer is.

        Returns:
            Its :class:`ComputerEnvironment`.
        """
