"""The Python builders and the Lua scripts agree on every argument's name and position.

The scripts are assembled from their signatures' bindings, the prelude functions they call and
their own code (``_scripts.py``); these tests read the assembled sources, as they run.
"""

from __future__ import annotations

import re
from importlib import resources

import pytest

from adk_runtime.sessions.redis._scripts import SIGNATURES, SOURCES

_BINDING = re.compile(r"^local (\w+) = (?:tonumber\()?(KEYS|ARGV)\[(\d+)\]\)?$", re.MULTILINE)
_ANY_INDEX = re.compile(r"\b(KEYS|ARGV)\[(\d+)\]")


def _bindings(source: str, table: str) -> list[str]:
    found = [(int(i), name) for name, kind, i in _BINDING.findall(source) if kind == table]
    positions = [i for i, _name in found]
    assert positions == list(range(1, len(found) + 1)), f"{table} bound out of order: {found}"
    return [name for _i, name in found]


@pytest.mark.parametrize("script", sorted(SOURCES))
def test_the_lua_bindings_match_the_python_signature(script: str) -> None:
    source = SOURCES[script]
    signature = SIGNATURES[script]
    assert _bindings(source, "KEYS") == [f"{name}_key" for name in signature.keys]
    assert _bindings(source, "ARGV") == list(signature.args)


@pytest.mark.parametrize("script", sorted(SOURCES))
def test_no_script_reads_a_positional_argument_outside_its_bindings(script: str) -> None:
    source = SOURCES[script]
    bound = {(kind, int(i)) for _name, kind, i in _BINDING.findall(source)}
    used = {(kind, int(i)) for kind, i in _ANY_INDEX.findall(source)}
    assert used == bound


def test_every_script_has_a_signature() -> None:
    assert set(SIGNATURES) == set(SOURCES)


def _file(name: str) -> str:
    return (resources.files("adk_runtime.sessions.redis") / f"lua/{name}.lua").read_text()


@pytest.mark.parametrize("script", sorted(SOURCES))
def test_a_script_file_holds_only_its_logic(script: str) -> None:
    # Its bindings come from its signature, its shared functions from the prelude.
    code = _file(script)
    assert not _BINDING.search(code)
    assert code.strip() in SOURCES[script]
    prelude_functions = re.findall(r"^local function (\w+)\(", _file("prelude"), re.MULTILINE)
    defined = re.findall(r"^local function (\w+)\(", code, re.MULTILINE)
    assert not set(defined) & set(prelude_functions)


def test_a_script_takes_only_the_prelude_functions_it_calls() -> None:
    assert "session_at" in SOURCES["create"]
    assert re.findall(r"^local function (\w+)\(", SOURCES["get"], re.MULTILINE) == ["read_session"]
    assert re.findall(r"^local function (\w+)\(", SOURCES["scope"], re.MULTILINE) == ["hset_pairs"]


def test_a_builder_refuses_a_missing_or_unknown_argument() -> None:
    signature = SIGNATURES["get"]
    keys = {name: name for name in signature.keys}
    args = {"count": 1, "after": "", "since": -1}
    assert signature.build(keys, args) == (list(signature.keys), [1, "", -1])
    with pytest.raises(TypeError, match="signature"):
        signature.build(keys, {"count": 1, "after": ""})
    with pytest.raises(TypeError, match="signature"):
        signature.build(keys, {**args, "extra": 2})
