"""The delay proxy's HTTP/2 mode counts calls' turns, never HTTP/2's own housekeeping."""

from __future__ import annotations

import multiprocessing
from typing import Any

from bench.delay_proxy import _HTTP2_PREFACE, _Turns

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def _frame(kind: int, payload: bytes = b"", stream: int = 1) -> bytes:
    return len(payload).to_bytes(3, "big") + bytes([kind, 0]) + stream.to_bytes(4, "big") + payload


HEADERS, DATA, SETTINGS, PING, WINDOW_UPDATE = 1, 0, 4, 6, 8


def _turns() -> tuple[_Turns, Any]:
    counter = multiprocessing.get_context("spawn").Value("q", 0)
    return _Turns(counter, http2=True), counter


def test_calls_count_and_housekeeping_does_not() -> None:
    assert len(PREFACE) == _HTTP2_PREFACE
    turns, counter = _turns()
    turns.saw("client", PREFACE + _frame(SETTINGS, stream=0))  # opening: no call yet
    turns.saw("server", _frame(SETTINGS, stream=0))
    turns.saw("client", _frame(SETTINGS, stream=0))  # the settings' acknowledgement
    turns.saw("client", _frame(HEADERS, b"h") + _frame(DATA, b"request"))  # call 1
    turns.saw("server", _frame(HEADERS, b"h") + _frame(DATA, b"reply"))
    turns.saw("client", _frame(WINDOW_UPDATE, b"\0\0\0\1", stream=0))  # housekeeping
    turns.saw("client", _frame(PING, b"\0" * 8, stream=0))
    turns.saw("server", _frame(PING, b"\0" * 8, stream=0))
    turns.saw("client", _frame(HEADERS, b"h", stream=3))  # call 2
    turns.saw("client", _frame(DATA, b"rest of call 2", stream=3))  # same turn
    assert counter.value == 2


def test_a_frame_split_across_chunks_is_still_seen() -> None:
    turns, counter = _turns()
    call = _frame(HEADERS, b"headers") + _frame(DATA, b"x" * 100)
    turns.saw("client", PREFACE[:10])
    turns.saw("client", PREFACE[10:] + call[:4])  # the HEADERS frame's header cut in two
    assert counter.value == 0
    turns.saw("client", call[4:50])
    assert counter.value == 1
    turns.saw("client", call[50:])
    turns.saw("server", _frame(DATA, b"reply")[:5])  # header incomplete: not a reply yet
    turns.saw("client", _frame(WINDOW_UPDATE, b"\0\0\0\1", stream=0))
    assert counter.value == 1
