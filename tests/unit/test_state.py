from __future__ import annotations

from adk_runtime.sessions.state import State, merge_state, split_state_delta


def test_writes_are_visible_and_recorded() -> None:
    value = {"a": 1}
    delta: dict[str, object] = {}
    state = State(value, delta)
    state["b"] = 2
    assert state["b"] == 2
    assert value == {"a": 1, "b": 2}
    assert delta == {"b": 2}
    assert state.has_delta()
    assert "a" in state
    assert "missing" not in state
    assert state.get("missing", "default") == "default"
    assert state.get("a") == 1
    assert state.to_dict() == {"a": 1, "b": 2}


def test_update_and_setdefault() -> None:
    state = State({}, {})
    state.update({"x": 1, "user:y": 2})
    assert state.setdefault("x", 5) == 1
    assert state.setdefault("z", 3) == 3
    assert state.to_dict() == {"x": 1, "user:y": 2, "z": 3}


def test_split_by_scope() -> None:
    session, app, user, temp = split_state_delta(
        {"k": 1, "app:a": 2, "user:u": 3, "temp:t": 4, "application": 5}
    )
    assert session == {"k": 1, "application": 5}
    assert app == {"a": 2}
    assert user == {"u": 3}
    assert temp == {"temp:t": 4}


def test_merge_adds_prefixes() -> None:
    assert merge_state({"k": 1}, {"a": 2}, {"u": 3}) == {"k": 1, "app:a": 2, "user:u": 3}
