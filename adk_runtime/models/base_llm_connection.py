"""``google.adk.models.base_llm_connection`` → here: the interface of a live model connection.

adk_runtime runs no live (bidirectional streaming) sessions: nothing here opens or uses such a
connection. The interface exists so that code written for google-adk that names it (a
``BaseLlm`` subclass typing its ``connect``, a test double) imports unchanged.
"""

from __future__ import annotations

import abc
from collections.abc import AsyncGenerator

from google.genai import types

from adk_runtime.models.llm_response import LlmResponse

__all__ = ["BaseLlmConnection", "RealtimeInput"]

RealtimeInput = types.Blob | types.ActivityStart | types.ActivityEnd | types.LiveClientRealtimeInput
"""What a live connection streams to the model in real time: media chunks and turn markers."""


class BaseLlmConnection(abc.ABC):
    """A live connection to a model: send the history, content and real-time input; receive."""

    @abc.abstractmethod
    async def send_history(self, history: list[types.Content]) -> None:
        """Send the conversation so far; the model answers only if the last turn is a user's."""

    @abc.abstractmethod
    async def send_content(self, content: types.Content) -> None:
        """Send one user turn (text or function responses); the model starts answering."""

    @abc.abstractmethod
    async def send_realtime(self, blob: RealtimeInput) -> None:
        """Send a real-time chunk (audio or video) or an activity marker."""

    @abc.abstractmethod
    def receive(self) -> AsyncGenerator[LlmResponse, None]:
        """Yield the model's responses as they arrive."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Close the connection."""
