"""The code that builds pages of the docs site (docs/hooks/) does what the pages rely on."""

from __future__ import annotations

import importlib.util
from types import ModuleType

from tests.serving import ROOT


def _hook(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "docs" / "hooks" / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_sphinx_roles_become_code_naming_their_target() -> None:
    plain = _hook("sphinx_roles").plain
    text = (
        "See :class:`Session`, :meth:`~adk_runtime.sessions.Session.close`, "
        ":func:`.prune_sessions` and :mod:`adk_runtime.codec`; `x` and :kbd:`y` stay."
    )
    assert plain(text) == (
        "See `Session`, `close`, `prune_sessions` and `adk_runtime.codec`; `x` and :kbd:`y` stay."
    )
