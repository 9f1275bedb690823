"""The memory contract, on every memory store (memory, sqlite, postgres)."""

from __future__ import annotations

from typing import Any

import pytest
from google.genai import types

from adk_runtime.errors import InputValidationError
from adk_runtime.events import Event
from adk_runtime.memory import BaseMemoryService
from adk_runtime.sessions import Session

APP, USER = "travel", "alice"


def event(text: str, author: str = "user") -> Event:
    role = "user" if author == "user" else "model"
    return Event(author=author, content=types.Content(role=role, parts=[types.Part(text=text)]))


def session(*texts: str, sid: str = "s1", app: str = APP, user: str = USER) -> Session:
    return Session(id=sid, app_name=app, user_id=user, events=[event(t) for t in texts])


async def search(service: BaseMemoryService, query: str, **key: Any) -> list[str]:
    where = {"app_name": APP, "user_id": USER, **key}
    response = await service.search_memory(query=query, **where)
    return [
        "".join(part.text or "" for part in entry.content.parts or [])
        for entry in response.memories
    ]


BOTH = "I booked a flight to Paris for May"
ONE = "Paris is lovely in the spring"
NONE = "The weather in Tokyo is rainy"
NEAR = "The cafe near the station opens early"


async def test_relevant_hits_are_found_and_ranked(memory_service: BaseMemoryService) -> None:
    await memory_service.add_session_to_memory(session(ONE, NONE, BOTH, NEAR))
    assert await search(memory_service, "paris flight") == [BOTH, ONE]
    assert await search(memory_service, "Tokyo") == [NONE]


async def test_entries_keep_content_author_and_event_id(
    memory_service: BaseMemoryService,
) -> None:
    remembered = session(BOTH)
    remembered.events.append(event("Your flight is confirmed", author="travel_agent"))
    await memory_service.add_session_to_memory(remembered)
    response = await memory_service.search_memory(app_name=APP, user_id=USER, query="confirmed")
    [entry] = response.memories
    assert entry.author == "travel_agent"
    assert entry.id == remembered.events[1].id
    assert entry.content == remembered.events[1].content
    assert entry.timestamp is not None


async def test_other_users_and_apps_are_never_returned(
    memory_service: BaseMemoryService,
) -> None:
    await memory_service.add_session_to_memory(session(BOTH, sid="s1"))
    await memory_service.add_session_to_memory(session("bob flies to Paris", user="bob"))
    await memory_service.add_session_to_memory(session("Paris flight in app2", app="app2"))
    assert await search(memory_service, "paris") == [BOTH]
    assert await search(memory_service, "paris", user_id="bob") == ["bob flies to Paris"]
    assert await search(memory_service, "paris", app_name="app2") == ["Paris flight in app2"]
    assert await search(memory_service, "paris", user_id="carol") == []


async def test_non_matching_and_empty_queries_return_nothing(
    memory_service: BaseMemoryService,
) -> None:
    await memory_service.add_session_to_memory(session(BOTH, ONE))
    assert await search(memory_service, "submarine") == []
    assert await search(memory_service, "") == []
    assert await search(memory_service, "   ?! ") == []


async def test_adding_a_session_again_does_not_duplicate(
    memory_service: BaseMemoryService,
) -> None:
    remembered = session(BOTH, ONE)
    await memory_service.add_session_to_memory(remembered)
    await memory_service.add_session_to_memory(remembered)
    assert sorted(await search(memory_service, "paris")) == sorted([BOTH, ONE])
    remembered.events.append(event("Paris museums are closed on Monday"))
    await memory_service.add_session_to_memory(remembered)
    found = await search(memory_service, "paris")
    assert sorted(found) == sorted([BOTH, ONE, "Paris museums are closed on Monday"])


async def test_events_without_text_are_not_remembered(memory_service: BaseMemoryService) -> None:
    remembered = session(BOTH)
    remembered.events.append(Event(author="tool"))
    blob = types.Part(inline_data=types.Blob(data=b"paris", mime_type="text/plain"))
    remembered.events.append(Event(author="user", content=types.Content(parts=[blob])))
    await memory_service.add_session_to_memory(remembered)
    assert await search(memory_service, "paris") == [BOTH]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ('"paris', [BOTH, ONE]),
        ("paris*", [BOTH, ONE]),
        ("flight:", [BOTH]),
        ("-paris -flight", [BOTH, ONE]),
        ("NEAR(cafe station)", [NEAR]),
        ("NEAR", [NEAR]),
        ("'; DROP TABLE memory_entries; --", []),
        ('"', []),
        ("*", []),
        ("paris OR", [BOTH, ONE]),
        ("(paris) & !flight | <-> :*", [BOTH, ONE]),
        ("submarine:* | !x", []),
    ],
)
async def test_query_syntax_characters_are_taken_literally(
    memory_service: BaseMemoryService, query: str, expected: list[str]
) -> None:
    await memory_service.add_session_to_memory(session(ONE, NONE, BOTH, NEAR))
    assert sorted(await search(memory_service, query)) == sorted(expected)


@pytest.mark.parametrize(
    "key",
    [{"app_name": ""}, {"user_id": "x\x00"}, {"user_id": None}, {"app_name": "a" * 200}],
)
async def test_bad_ids_are_rejected(memory_service: BaseMemoryService, key: Any) -> None:
    with pytest.raises(InputValidationError):
        await memory_service.search_memory(
            **{"app_name": APP, "user_id": USER, "query": "x", **key}
        )


async def test_bad_query_is_rejected(memory_service: BaseMemoryService) -> None:
    with pytest.raises(InputValidationError):
        await memory_service.search_memory(app_name=APP, user_id=USER, query=None)  # type: ignore[arg-type]
