"""The memory contract, on every memory store (memory, sqlite, postgres, spanner)."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
from blockbuster import BlockBuster
from google.genai import types

from adk_runtime.errors import InputValidationError, SerializationError
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


async def test_common_words_do_not_match_everything(memory_service: BaseMemoryService) -> None:
    await memory_service.add_session_to_memory(session(ONE, NONE, BOTH, NEAR))
    assert await search(memory_service, "What is the weather in Tokyo?") == [NONE]
    assert await search(memory_service, "the is a in") == []


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


async def test_add_events_is_an_incremental_delta_with_metadata(
    memory_service: BaseMemoryService,
) -> None:
    first, second = event(BOTH), event(ONE)
    where = {"app_name": APP, "user_id": USER, "session_id": "s1"}
    await memory_service.add_events_to_memory(events=[first], custom_metadata={"turn": 1}, **where)
    await memory_service.add_events_to_memory(events=[second, first], **where)
    response = await memory_service.search_memory(app_name=APP, user_id=USER, query="paris")
    by_id = {entry.id: entry for entry in response.memories}
    assert set(by_id) == {first.id, second.id}
    assert by_id[first.id].custom_metadata == {"turn": 1}
    assert by_id[second.id].custom_metadata == {}
    await memory_service.add_events_to_memory(
        app_name=APP, user_id=USER, events=[event("no session given about Tokyo")]
    )
    assert await search(memory_service, "tokyo") == ["no session given about Tokyo"]


async def test_concurrent_adds_of_one_session_do_not_duplicate(
    memory_service: BaseMemoryService,
) -> None:
    remembered = session(BOTH, ONE, NEAR)
    await asyncio.gather(*(memory_service.add_session_to_memory(remembered) for _ in range(8)))
    assert sorted(await search(memory_service, "paris near")) == sorted([BOTH, ONE, NEAR])


async def test_delete_memory_forgets_one_entry_of_that_user_only(
    memory_service: BaseMemoryService,
) -> None:
    alice = session(BOTH, ONE)
    bob = Session(id="s1", app_name=APP, user_id="bob", events=list(alice.events))
    await memory_service.add_session_to_memory(alice)
    await memory_service.add_session_to_memory(bob)
    await memory_service.delete_memory(app_name=APP, user_id=USER, memory_id=alice.events[0].id)
    assert await search(memory_service, "paris") == [ONE]
    assert sorted(await search(memory_service, "paris", user_id="bob")) == sorted([BOTH, ONE])
    await memory_service.delete_memory(app_name=APP, user_id=USER, memory_id="unknown")
    with pytest.raises(InputValidationError):
        await memory_service.delete_memory(app_name=APP, user_id=USER, memory_id=None)


async def test_bad_events_and_metadata_are_rejected_and_write_nothing(
    memory_service: BaseMemoryService,
) -> None:
    where = {"app_name": APP, "user_id": USER, "session_id": "s1"}
    with pytest.raises(InputValidationError):
        await memory_service.add_events_to_memory(events=["paris"], **where)  # type: ignore[list-item]
    for text in ["nul \x00 paris", "lone \udc80 paris"]:
        with pytest.raises(InputValidationError):
            await memory_service.add_events_to_memory(events=[event(BOTH), event(text)], **where)
    with pytest.raises(SerializationError):
        await memory_service.add_events_to_memory(
            events=[event(BOTH)], custom_metadata={"bad": {1, 2}}, **where
        )
    assert await search(memory_service, "paris") == []


async def test_memory_calls_never_block_the_loop(
    memory_service: BaseMemoryService, blockbuster: BlockBuster
) -> None:
    await memory_service.add_session_to_memory(session(BOTH, ONE))
    assert await search(memory_service, "flight") == [BOTH]


async def test_random_queries_never_raise(memory_service: BaseMemoryService) -> None:
    await memory_service.add_session_to_memory(session(ONE, NONE, BOTH, NEAR))
    rng = random.Random(1234)
    alphabet = (
        "abcxyz ÀéßøΩжЖ中文日本語한국어٣²½ـ\u200b\u00a0\t"
        "\"'`*:-+^~()[]{}<>|&!?.,;/\\%$#@_=NEARORANDNOT"
    )
    for _ in range(200):
        query = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40)))
        response = await memory_service.search_memory(app_name=APP, user_id=USER, query=query)
        assert all(entry.content.parts for entry in response.memories)
    long_query = " ".join(f"w{i}" for i in range(500)) + " paris"
    assert await search(memory_service, long_query) == []  # only the first 32 words count


async def test_a_credential_given_beside_text_is_never_remembered(
    memory_service: BaseMemoryService,
) -> None:
    """Memory search results reach models (``load_memory``): the user's credential answer,
    sent in the same message as text, stays out of the remembered content."""
    answer = types.FunctionResponse(
        id="adk-r1", name="adk_request_credential", response={"result": "USER-KEY-77"}
    )
    tool = types.FunctionResponse(id="t1", name="lookup", response={"rooms": 3})
    parts = [
        types.Part(text="here is my hotel key"),
        types.Part(function_response=answer),
        types.Part(function_response=tool),
    ]
    message = Event(author="user", content=types.Content(role="user", parts=parts))
    await memory_service.add_session_to_memory(
        Session(id="s1", app_name=APP, user_id=USER, events=[message])
    )

    response = await memory_service.search_memory(app_name=APP, user_id=USER, query="hotel key")

    [entry] = response.memories
    assert "USER-KEY-77" not in entry.content.model_dump_json()
    assert [part.text for part in entry.content.parts or [] if part.text] == [
        "here is my hotel key"
    ]
    assert [p.function_response.name for p in entry.content.parts or [] if p.function_response] == [
        "lookup"
    ]
    assert message.content is not None
    assert len(message.content.parts or []) == 3  # the session's event itself is untouched
