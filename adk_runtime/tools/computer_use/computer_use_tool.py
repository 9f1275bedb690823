"""ComputerUseTool: one computer action, with the model's coordinates scaled to the screen."""

from __future__ import annotations

import base64
import binascii
import logging
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any

from google.genai import types

from adk_runtime.tools._confirm import PENDING, REJECTED
from adk_runtime.tools.computer_use.base_computer import ComputerState
from adk_runtime.tools.function_tool import FunctionTool

if TYPE_CHECKING:
    from adk_runtime.core.tool_context import ToolContext
    from adk_runtime.models.llm_request import LlmRequest

__all__ = [
    "ComputerUseTool",
    "screenshot_parts",
    "state_response",
    "with_screenshots_as_parts",
]

logger = logging.getLogger(__name__)

_X_ARGUMENTS = ("x", "destination_x", "start_x", "end_x")
_Y_ARGUMENTS = ("y", "destination_y", "start_y", "end_y")
# Gemini 3 names the ends of a drag start_*/end_*; BaseComputer.drag_and_drop takes
# x/y and destination_*.
_LEGACY_DRAG_NAMES = {
    "start_x": "x",
    "start_y": "y",
    "end_x": "destination_x",
    "end_y": "destination_y",
}
_CONFIRMATION_HINT = "The model asks you to approve this computer action before it runs."


class ComputerUseTool(FunctionTool):
    """A computer action the model calls with coordinates on a virtual grid.

    The model places points on a ``virtual_screen_size`` grid (1000 x 1000 by default)
    whatever the screen; the tool scales ``x``/``y`` (and ``destination_*``, ``start_*``,
    ``end_*``) to the real ``screen_size`` and clamps them to it before calling ``func``.
    A :class:`ComputerState` result becomes ``{"image": {"mimetype", "data"}, "url"}``
    (``data`` in base64), as in google-adk; the image then reaches the model, and the
    session, as an image part of the function response.

    When the model marks a call ``safety_decision: {"decision": "require_confirmation"}``
    the user is asked first (``ToolContext.request_confirmation``); a confirmed call runs
    and its result says ``"safety_acknowledgement": "true"``, as Gemini expects.

    The tool offers no function declaration of its own: Gemini knows the computer-use
    actions (``ComputerUseToolset`` declares the computer-use tool in the request).
    """

    def __init__(
        self,
        *,
        func: Callable[..., Any],
        screen_size: tuple[int, int],
        virtual_screen_size: tuple[int, int] = (1000, 1000),
    ) -> None:
        """Wrap ``func``, an action of a computer whose screen is ``screen_size``.

        Args:
            func: The action (its ``__name__`` is the tool's name).
            screen_size: The real screen's ``(width, height)`` in pixels.
            virtual_screen_size: The ``(width, height)`` of the grid the model's
                coordinates are on.

        Raises:
            ValueError: A size is not a tuple of two positive numbers.
        """
        super().__init__(func)
        self._screen_size = _checked_size("screen_size", screen_size)
        self._coordinate_space = _checked_size("virtual_screen_size", virtual_screen_size)

    def _normalize_x(self, x: float) -> int:
        """``x`` on the model's grid, as a pixel column of the screen."""
        return _scale("x", x, self._coordinate_space[0], self._screen_size[0])

    def _normalize_y(self, y: float) -> int:
        """``y`` on the model's grid, as a pixel row of the screen."""
        return _scale("y", y, self._coordinate_space[1], self._screen_size[1])

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Run the action with scaled coordinates; answer its state with the screenshot.

        Raises:
            ValueError: A coordinate is not a number.
        """
        confirmation = tool_context.tool_confirmation
        if confirmation is None:
            decision = args.get("safety_decision")
            if isinstance(decision, dict) and decision.get("decision") == "require_confirmation":
                explanation = decision.get("explanation")
                tool_context.request_confirmation(hint=explanation or _CONFIRMATION_HINT)
                tool_context.actions.skip_summarization = True
                return {"error": PENDING}
        elif not confirmation.confirmed:
            return {"error": REJECTED}
        # The action's result as it returned it: FunctionTool.run_async would turn a
        # ComputerState into JSON (its screenshot bytes as text); it is answered as an image.
        result = await self._call_function(self._scaled(args), tool_context)
        response: Any = result
        if isinstance(result, ComputerState):
            response = state_response(result)
        if confirmation is not None:  # confirmed
            if not isinstance(response, dict):
                response = {"result": response}
            response["safety_acknowledgement"] = "true"
        return response

    def _scaled(self, args: dict[str, Any]) -> dict[str, Any]:
        """``args`` with the coordinates scaled, and drag ends renamed if ``func`` wants."""
        scaled = dict(args)
        for name in _X_ARGUMENTS:
            if name in scaled:
                scaled[name] = self._normalize_x(scaled[name])
        for name in _Y_ARGUMENTS:
            if name in scaled:
                scaled[name] = self._normalize_y(scaled[name])
        if logger.isEnabledFor(logging.DEBUG):
            changed = {k: (args[k], v) for k, v in scaled.items() if args[k] != v}
            logger.debug("%s: coordinates scaled to the screen: %s", self.name, changed)
        if "start_x" not in self._signature.parameter_names:
            for modern, legacy in _LEGACY_DRAG_NAMES.items():
                if modern in scaled and legacy not in scaled:
                    scaled[legacy] = scaled.pop(modern)
        return scaled

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Offer nothing: the toolset declares the computer-use tool and lists the actions."""

    def response_media(
        self, response: dict[str, Any]
    ) -> tuple[dict[str, Any], list[types.FunctionResponsePart]] | None:
        """The action's screenshot (``image``, base64) as an image part (``screenshot_parts``)."""
        return screenshot_parts(response)


def _checked_size(name: str, size: Any) -> tuple[int, int]:
    if not isinstance(size, tuple) or len(size) != 2:  # pyright: ignore[reportUnknownArgumentType]
        raise ValueError(f"{name} must be a tuple (width, height); got {size!r}.")
    width, height = size  # pyright: ignore[reportUnknownVariableType]
    if not all(isinstance(v, int | float) for v in (width, height)):
        raise ValueError(f"{name} must hold two numbers; got {size!r}.")
    if width <= 0 or height <= 0:
        raise ValueError(f"{name} dimensions must be positive; got {size!r}.")
    return size  # pyright: ignore[reportUnknownVariableType]


def _scale(axis: str, value: Any, grid: int, pixels: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{axis} coordinate must be numeric; got {type(value).__name__}.")
    position = int(value / grid * pixels)
    return min(max(position, 0), pixels - 1)


def state_response(state: ComputerState) -> dict[str, Any]:
    """``state`` as an action's response: ``url``, and ``image`` when there is a screenshot."""
    response: dict[str, Any] = {}
    if state.screenshot is not None:
        data = base64.b64encode(state.screenshot).decode("ascii")
        response["image"] = {"mimetype": "image/png", "data": data}
    response["url"] = state.url
    return response


def screenshot_parts(
    response: dict[str, Any],
) -> tuple[dict[str, Any], list[types.FunctionResponsePart]] | None:
    """Split a computer action's response into the rest and its screenshot as a part.

    Args:
        response: A function response of a computer action.

    Returns:
        The response without ``image``, and the decoded image as a function-response part;
        None when the response holds no well-formed ``image``.
    """
    image = response.get("image")
    if not isinstance(image, dict):
        return None
    data: Any = image.get("data")  # pyright: ignore[reportUnknownMemberType]
    mime_type: Any = image.get("mimetype")  # pyright: ignore[reportUnknownMemberType]
    if not isinstance(data, str | bytes) or not isinstance(mime_type, str):
        return None
    try:
        decoded = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        logger.warning("A computer action's screenshot is not valid base64; it stays as text.")
        return None
    rest = {key: value for key, value in response.items() if key != "image"}
    return rest, [types.FunctionResponsePart.from_bytes(data=decoded, mime_type=mime_type)]


def with_screenshots_as_parts(
    contents: list[types.Content], names: Collection[str]
) -> list[types.Content]:
    """``contents`` with the screenshots of the actions ``names`` moved into image parts.

    An action's screenshot becomes a part when the action returns (``response_media``) and
    is stored so. This upgrades what was stored before that (a screenshot in the JSON
    response) when it is sent again: a function response of one of those actions that holds
    an ``image`` gets it as a function-response part (what Gemini's computer use reads)
    instead of base64 text. The contents given are not changed: the ones that change are
    copies.
    """
    result: list[types.Content] = []
    for content in contents:
        parts = content.parts or []
        new_parts = [_with_screenshot_part(part, names) for part in parts]
        if any(new is not old for new, old in zip(new_parts, parts, strict=True)):
            content = content.model_copy(update={"parts": new_parts})
        result.append(content)
    return result


def _with_screenshot_part(part: types.Part, names: Collection[str]) -> types.Part:
    response = part.function_response
    if response is None or response.name not in names or not isinstance(response.response, dict):
        return part
    split = screenshot_parts(response.response)
    if split is None:
        return part
    rest, images = split
    moved = response.model_copy(
        update={"response": rest, "parts": [*(response.parts or []), *images]}
    )
    return part.model_copy(update={"function_response": moved})
