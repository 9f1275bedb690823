"""The MemoryService contract: searchable recollection of past sessions."""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field, alias_generators

from adk_runtime.errors import InputValidationError
from adk_runtime.memory._text import EventText, encode_metadata, query_words, texts_of
from adk_runtime.sessions._validation import validate_id

if TYPE_CHECKING:
    from adk_runtime.events import Event
    from adk_runtime.sessions.session import Session

__all__ = ["BaseMemoryService", "EventMemoryService", "MemoryEntry", "SearchMemoryResponse"]


class MemoryEntry(BaseModel):
    """One remembered piece of a past conversation.

    Attributes:
        content: The remembered content.
        author: Who said it.
        timestamp: When it was said (ISO-8601), if known.
        id: The stored entry's id, if any (the remembered event's id).
        custom_metadata: Metadata stored with the entry.
    """

    model_config = ConfigDict(alias_generator=alias_generators.to_camel, populate_by_name=True)

    content: types.Content
    author: str | None = None
    timestamp: str | None = None
    id: str | None = None
    custom_metadata: dict[str, Any] = Field(default_factory=dict)


class SearchMemoryResponse(BaseModel):
    """The memories that match a query, best first."""

    model_config = ConfigDict(alias_generator=alias_generators.to_camel, populate_by_name=True)

    memories: list[MemoryEntry] = Field(default_factory=list)


class BaseMemoryService(abc.ABC):
    """Stores sessions' content and searches it, scoped by app and user."""

    @abc.abstractmethod
    async def add_session_to_memory(self, session: Session) -> None:
        """Remember the session's events (adding the same session twice adds nothing)."""

    async def add_events_to_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        events: Sequence[Event],
        session_id: str | None = None,
        custom_metadata: Mapping[str, object] | None = None,
    ) -> None:
        """Remember some events (a delta, e.g. the latest turn); events already stored are skipped.

        Raises:
            NotImplementedError: The service only remembers whole sessions.
        """
        raise NotImplementedError(
            f"{type(self).__name__} does not support add_events_to_memory; "
            "call add_session_to_memory(session)."
        )

    async def add_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        memories: Sequence[MemoryEntry],
        custom_metadata: Mapping[str, object] | None = None,
    ) -> None:
        """Store memory entries directly.

        Raises:
            NotImplementedError: The service remembers events only (the default).
        """
        raise NotImplementedError(
            f"{type(self).__name__} does not support direct memory writes; "
            "call add_events_to_memory(...) or add_session_to_memory(session)."
        )

    async def delete_memory(
        self, *, app_name: str, user_id: str, memory_id: str | None = None
    ) -> None:
        """Forget the user's memory whose ``MemoryEntry.id`` is ``memory_id``.

        Raises:
            NotImplementedError: The service cannot forget single memories (the default).
        """
        raise NotImplementedError(f"{type(self).__name__} cannot delete single memories.")

    @abc.abstractmethod
    async def search_memory(
        self, *, app_name: str, user_id: str, query: str
    ) -> SearchMemoryResponse:
        """Return the user's memories in the app that match ``query``, best first."""

    async def close(self) -> None:
        """Release what the service opened; the default has nothing."""
        return None


class EventMemoryService(BaseMemoryService):
    """A memory service that stores events: remembering a session adds its events.

    The public methods validate their arguments (raising
    :class:`~adk_runtime.errors.InputValidationError`, writing nothing) and call three hooks
    that subclasses implement on validated input: :meth:`_remember`, :meth:`_forget` and
    :meth:`_recall`.
    """

    async def add_session_to_memory(self, session: Session) -> None:
        """Remember the text of the session's events (events already stored are skipped)."""
        await self.add_events_to_memory(
            app_name=session.app_name,
            user_id=session.user_id,
            events=session.events,
            session_id=session.id,
        )

    async def add_events_to_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        events: Sequence[Event],
        session_id: str | None = None,
        custom_metadata: Mapping[str, object] | None = None,
    ) -> None:
        """Remember the events with text; events already stored are skipped."""
        _validate_scope(app_name, user_id)
        if session_id is not None:
            validate_id(session_id, "session_id")
        metadata = encode_metadata(custom_metadata)
        found = texts_of(events)
        if found:
            await self._remember(app_name, user_id, session_id or "", found, metadata)

    async def delete_memory(
        self, *, app_name: str, user_id: str, memory_id: str | None = None
    ) -> None:
        """Forget the user's memory with this id (an event id); unknown ids are ignored."""
        _validate_scope(app_name, user_id)
        if memory_id is None:
            raise InputValidationError("memory_id is required.")
        validate_id(memory_id, "memory_id")
        await self._forget(app_name, user_id, memory_id)

    async def search_memory(
        self, *, app_name: str, user_id: str, query: str
    ) -> SearchMemoryResponse:
        """Return the user's memories in the app that match ``query``, best first."""
        _validate_scope(app_name, user_id)
        words = query_words(query)
        if not words:
            return SearchMemoryResponse()
        return SearchMemoryResponse(memories=await self._recall(app_name, user_id, words))

    @abc.abstractmethod
    async def _remember(
        self, app_name: str, user_id: str, session_id: str, found: list[EventText], metadata: str
    ) -> None:
        """Store the events of ``found`` not stored yet (``session_id`` is "" when none).

        ``metadata`` is the stored JSON of the custom metadata; ``found`` is not empty.
        """

    @abc.abstractmethod
    async def _forget(self, app_name: str, user_id: str, memory_id: str) -> None:
        """Delete the user's memory whose id is ``memory_id``, if there is one."""

    @abc.abstractmethod
    async def _recall(self, app_name: str, user_id: str, words: list[str]) -> list[MemoryEntry]:
        """Return the user's memories matching any of ``words`` (not empty), best first."""


def _validate_scope(app_name: str, user_id: str) -> None:
    validate_id(app_name, "app_name")
    validate_id(user_id, "user_id")
