"""lazy_getattr: a package's names loaded on first use, from a table."""

from __future__ import annotations

import pytest

import adk_runtime.sessions
from adk_runtime._lazy import lazy_getattr


def test_a_name_is_imported_from_its_module_on_first_use() -> None:
    getattr_ = lazy_getattr("pkg", {"OrderedDict": "collections"})
    from collections import OrderedDict

    assert getattr_("OrderedDict") is OrderedDict


def test_a_name_not_in_the_table_is_no_attribute() -> None:
    with pytest.raises(AttributeError, match="module 'pkg' has no attribute 'Nope'"):
        lazy_getattr("pkg", {})("Nope")
    assert not hasattr(adk_runtime.sessions, "NoSuchSessionService")


def test_a_missing_dependency_names_the_extra_when_the_table_gives_one() -> None:
    names = {"Thing": "adk_runtime_no_such_module"}
    with pytest.raises(ImportError, match=r"pkg\.Thing needs .* pip install 'adk-runtime\[x\]'"):
        lazy_getattr("pkg", names, extras={"adk_runtime_no_such_module": "x"})("Thing")
    with pytest.raises(ModuleNotFoundError, match="adk_runtime_no_such_module"):
        lazy_getattr("pkg", names)("Thing")


def test_the_packages_load_their_lazy_names() -> None:
    from adk_runtime.sessions.sql import DatabaseSessionService

    assert adk_runtime.sessions.DatabaseSessionService is DatabaseSessionService
