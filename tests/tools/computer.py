"""An in-memory browser for the computer-use tests: it records actions and draws PNGs."""

from __future__ import annotations

import struct
import zlib
from typing import Any

from adk_runtime.core.tool_context import ToolContext
from adk_runtime.tools.computer_use import BaseComputer, ComputerEnvironment, ComputerState
from adk_runtime.tools.computer_use.base_computer import ScrollDirection

WIDTH, HEIGHT = 1280, 800
HOME = "https://start.example/"


def png(shade: int) -> bytes:
    """A real 2 x 2 PNG, grey at ``shade`` (so each screenshot differs)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + bytes([shade % 256] * 3) * 2 for _ in range(2))
    header = struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


class MemoryBrowser(BaseComputer):
    """Keeps a url and a history; every action is recorded and answered with a new PNG."""

    def __init__(self) -> None:
        self.actions: list[tuple[Any, ...]] = []
        self.prepared: list[str | None] = []
        self.url = HOME
        self.back: list[str] = []
        self.forward: list[str] = []
        self.shots: list[bytes] = []

    def _state(self, *action: Any) -> ComputerState:
        self.actions.append(action)
        shot = png(len(self.shots) * 40)
        self.shots.append(shot)
        return ComputerState(screenshot=shot, url=self.url)

    async def prepare(self, tool_context: ToolContext) -> None:
        self.prepared.append(tool_context.function_call_id)

    async def initialize(self) -> None:
        self.actions.append(("initialize",))

    async def close(self) -> None:
        self.actions.append(("close",))

    async def screen_size(self) -> tuple[int, int]:
        return (WIDTH, HEIGHT)

    async def environment(self) -> ComputerEnvironment:
        return ComputerEnvironment.ENVIRONMENT_BROWSER

    async def open_web_browser(self) -> ComputerState:
        return self._state("open_web_browser")

    async def click_at(self, x: int, y: int) -> ComputerState:
        return self._state("click_at", x, y)

    async def hover_at(self, x: int, y: int) -> ComputerState:
        return self._state("hover_at", x, y)

    async def type_text_at(
        self,
        x: int,
        y: int,
        text: str,
        press_enter: bool = True,
        clear_before_typing: bool = True,
    ) -> ComputerState:
        return self._state("type_text_at", x, y, text, press_enter, clear_before_typing)

    async def scroll_document(self, direction: ScrollDirection) -> ComputerState:
        return self._state("scroll_document", direction)

    async def scroll_at(
        self, x: int, y: int, direction: ScrollDirection, magnitude: int
    ) -> ComputerState:
        return self._state("scroll_at", x, y, direction, magnitude)

    async def wait(self, seconds: int) -> ComputerState:
        return self._state("wait", seconds)

    async def go_back(self) -> ComputerState:
        if self.back:
            self.forward.append(self.url)
            self.url = self.back.pop()
        return self._state("go_back")

    async def go_forward(self) -> ComputerState:
        if self.forward:
            self.back.append(self.url)
            self.url = self.forward.pop()
        return self._state("go_forward")

    async def search(self) -> ComputerState:
        return await self.navigate("https://search.example/")

    async def navigate(self, url: str) -> ComputerState:
        self.back.append(self.url)
        self.forward.clear()
        self.url = url
        return self._state("navigate", url)

    async def key_combination(self, keys: list[str]) -> ComputerState:
        return self._state("key_combination", *keys)

    async def drag_and_drop(
        self, x: int, y: int, destination_x: int, destination_y: int
    ) -> ComputerState:
        return self._state("drag_and_drop", x, y, destination_x, destination_y)

    async def current_state(self) -> ComputerState:
        return self._state("current_state")


class NativeBrowser(MemoryBrowser):
    """Defines some Gemini 3 actions itself (a native click, a double click, typing)."""

    async def click(self, x: int, y: int, button: str = "left") -> ComputerState:
        return self._state("click", x, y, button)

    async def double_click(self, x: int, y: int) -> ComputerState:
        return self._state("double_click", x, y)

    async def type_text(self, text: str, press_enter: bool = False) -> ComputerState:
        return self._state("type_text", text, press_enter)
