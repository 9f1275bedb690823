"""Few-shot examples for the model (``google.adk.examples`` → here): see ``tools.ExampleTool``."""

from adk_runtime.examples.base_example_provider import BaseExampleProvider
from adk_runtime.examples.example import Example

__all__ = ["BaseExampleProvider", "Example"]
