"""What a model request needs of a tool (the ``DeclaredTool`` shape).

``LlmRequest.append_tools`` reads a tool's name and its function declaration, and keeps the
tool in ``tools_dict`` for the flow that runs the model's calls. ``BaseTool`` has this shape
without naming it; the shape is the models package's own, so models never imports the tools'
base class (it sits in a layer above).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from google.genai import types

__all__ = ["DeclaredTool"]


class DeclaredTool(Protocol):
    """A tool as a model request holds it: its name and the declaration the model sees."""

    @property
    def name(self) -> str:
        """The function name the model calls."""
        ...

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        """The declaration offered to the model; None offers nothing."""
        ...
