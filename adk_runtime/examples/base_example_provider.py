"""``BaseExampleProvider``: examples chosen for the user's message (e.g. by similarity)."""

from __future__ import annotations

import abc

from adk_runtime.examples.example import Example

__all__ = ["BaseExampleProvider"]


class BaseExampleProvider(abc.ABC):
    """Gives the examples that suit a query; ``ExampleTool`` asks before each model call."""

    @abc.abstractmethod
    def get_examples(self, query: str) -> list[Example]:
        """The examples for ``query`` (the text of the user's message)."""
