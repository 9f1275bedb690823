"""``ExampleTool``: few-shot examples in the system instruction of every model call.

Not a function the model calls: before each model request it adds the examples (a fixed
list, or what a ``BaseExampleProvider`` picks for the user's message) to the instruction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import TypeAdapter

from adk_runtime.core._config import loader, located
from adk_runtime.core._tool_configs import BaseToolConfig
from adk_runtime.core.base_tool import BaseTool
from adk_runtime.errors import AgentConfigError
from adk_runtime.examples import example_util
from adk_runtime.examples.base_example_provider import BaseExampleProvider
from adk_runtime.examples.example import Example
from adk_runtime.utils.content_utils import extract_text_from_content

if TYPE_CHECKING:
    from adk_runtime.core._tool_configs import ToolArgsConfig
    from adk_runtime.core.tool_context import ToolContext
    from adk_runtime.models.llm_request import LlmRequest

__all__ = ["ExampleTool", "ExampleToolConfig"]

_EXAMPLES = TypeAdapter(list[Example])


class ExampleTool(BaseTool):
    """Adds few-shot examples to the model's instruction.

    Attributes:
        examples: The examples (validated: dicts are accepted), or a provider.
    """

    def __init__(self, examples: list[Example] | BaseExampleProvider) -> None:
        """Create the tool.

        Raises:
            pydantic.ValidationError: A list entry is not an example.
        """
        super().__init__(name="example_tool", description="Adds few-shot examples.")
        self.examples: list[Example] | BaseExampleProvider = (
            examples
            if isinstance(examples, BaseExampleProvider)
            else _EXAMPLES.validate_python(examples)
        )

    @classmethod
    def from_config(cls, config: ToolArgsConfig, config_abs_path: str) -> ExampleTool:
        """Build the tool from an agent YAML file's ``args`` (an :class:`ExampleToolConfig`).

        Raises:
            pydantic.ValidationError: A key ``ExampleToolConfig`` does not have, or an entry
                that is not an example.
            AgentConfigError: ``examples`` names something that is not a
                ``BaseExampleProvider``.
        """
        settings = ExampleToolConfig.model_validate(config.model_dump())
        if isinstance(settings.examples, list):
            return cls(settings.examples)
        with located("examples"):
            provider = loader().resolve_fully_qualified_name(settings.examples)
            if not isinstance(provider, BaseExampleProvider):
                raise AgentConfigError(
                    f"{settings.examples!r} is a {type(provider).__name__}, not a "
                    "BaseExampleProvider instance."
                )
        return cls(provider)

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Add the examples for this turn's user message (nothing without one, or none)."""
        message = tool_context.user_content
        if message is None or not message.parts:
            return
        query = extract_text_from_content(message, splitter=" ")
        if isinstance(self.examples, BaseExampleProvider):
            if not query:
                return  # nothing to choose examples by
            chosen = self.examples.get_examples(query)
        else:
            chosen = self.examples
        if chosen:
            text = example_util.convert_examples_to_text(chosen, llm_request.model)
            llm_request.append_instructions([text])


class ExampleToolConfig(BaseToolConfig):
    """The ``args`` of an ``ExampleTool`` entry in an agent YAML file (google-adk's model).

    ``examples``: the examples, or the dotted path of a ``BaseExampleProvider`` instance.
    """

    examples: list[Example] | str
