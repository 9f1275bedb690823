"""The MemoryService contract: searchable recollection of past sessions."""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field, alias_generators

if TYPE_CHECKING:
    from adk_runtime.sessions.session import Session

__all__ = ["BaseMemoryService", "MemoryEntry", "SearchMemoryResponse"]


class MemoryEntry(BaseModel):
    """One remembered piece of a past conversation.

    Attributes:
        content: The remembered content.
        author: Who said it.
        timestamp: When it was said (ISO-8601), if known.
        id: The stored entry's id, if any.
    """

    model_config = ConfigDict(alias_generator=alias_generators.to_camel, populate_by_name=True)

    content: types.Content
    author: str | None = None
    timestamp: str | None = None
    id: str | None = None


class SearchMemoryResponse(BaseModel):
    """The memories that match a query, best first."""

    model_config = ConfigDict(alias_generator=alias_generators.to_camel, populate_by_name=True)

    memories: list[MemoryEntry] = Field(default_factory=list)


class BaseMemoryService(abc.ABC):
    """Stores sessions' content and searches it, scoped by app and user."""

    @abc.abstractmethod
    async def add_session_to_memory(self, session: Session) -> None:
        """Remember the session's events (adding the same session twice adds nothing)."""

    @abc.abstractmethod
    async def search_memory(
        self, *, app_name: str, user_id: str, query: str
    ) -> SearchMemoryResponse:
        """Return the user's memories in the app that match ``query``, best first."""

    async def close(self) -> None:
        """Release what the service opened; the default has nothing."""
        return None
