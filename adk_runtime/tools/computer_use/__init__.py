"""Computer use: a Gemini computer-use model operating a browser (or another screen).

The application implements :class:`BaseComputer` (over Playwright, a remote sandbox...);
:class:`ComputerUseToolset` offers its actions to the model; each action answers with a
:class:`ComputerState` whose screenshot the model sees::

    from adk_runtime.agents import LlmAgent
    from adk_runtime.tools.computer_use import ComputerUseToolset

    agent = LlmAgent(
        name="browser",
        model="gemini-2.5-computer-use-preview-10-2025",
        tools=[ComputerUseToolset(computer=MyPlaywrightComputer())],
    )
"""

from adk_runtime.tools.computer_use.base_computer import (
    BaseComputer,
    ComputerEnvironment,
    ComputerState,
)
from adk_runtime.tools.computer_use.computer_use_tool import ComputerUseTool
from adk_runtime.tools.computer_use.computer_use_toolset import ComputerUseToolset

__all__ = [
    "BaseComputer",
    "ComputerEnvironment",
    "ComputerState",
    "ComputerUseTool",
    "ComputerUseToolset",
]
