"""``Example``: one few-shot example, a user's input and the turn that answered it."""

from __future__ import annotations

from google.genai import types
from pydantic import BaseModel

__all__ = ["Example"]


class Example(BaseModel):
    """A few-shot example.

    Attributes:
        input: What the user said.
        output: The contents that answered it, in order: the model's text and function
            calls, and the function responses (role ``user``) they got.
    """

    input: types.Content
    output: list[types.Content]
