"""A pytest plugin for ``python -m bench.adk_unit_tests --stub-private``.

google-adk's test files often import one of its private helpers (``from google.adk.x import
_helper``) next to the public names they test; rewritten to ``adk_runtime``, such an import
fails and the whole file with it, public tests included. With this plugin loaded, a private
name (one leading underscore, not a dunder) that an ``adk_runtime`` module lacks is a
placeholder instead: the file imports, the tests that never touch the placeholder run, and
using the placeholder (calling it, or reading an attribute of it) raises ``NotImplementedError``
naming it, which ``bench/adk_gaps.py`` counts as ``private``.

The placeholder exists only in the ported test run: nothing of adk_runtime changes.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

_PACKAGE = "adk_runtime"


def _error(where: str) -> NotImplementedError:
    return NotImplementedError(f"google-adk's private {where} is not in adk_runtime")


class _Missing:
    """Stands for a private name of google-adk that adk_runtime does not have."""

    def __init__(self, where: str) -> None:
        object.__setattr__(self, "_where", where)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise _error(object.__getattribute__(self, "_where"))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise _error(object.__getattribute__(self, "_where"))

    def __repr__(self) -> str:
        return f"<missing {object.__getattribute__(self, '_where')}>"


def _stub(module: ModuleType) -> None:
    """Give ``module`` a ``__getattr__`` that answers a missing private name."""
    found: Callable[[str], Any] | None = module.__dict__.get("__getattr__")

    def __getattr__(name: str) -> Any:
        if found is not None:
            try:
                return found(name)
            except AttributeError:
                pass
        # Only for a name asked for from outside adk_runtime (a test's import, mock.patch):
        # adk_runtime's own probes (getattr(module, "_x", None)) see what is really there.
        caller = sys._getframe(1).f_globals.get("__name__", "")
        ours = caller == _PACKAGE or caller.startswith(_PACKAGE + ".")
        private = name.startswith("_") and not name.startswith("__")
        # A submodule of that name is for the import system to load.
        if private and not ours and not _is_submodule(module, name):
            return _Missing(f"{module.__name__}.{name}")
        raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}")

    module.__getattr__ = __getattr__  # type: ignore[method-assign]


def _is_submodule(module: ModuleType, name: str) -> bool:
    if not hasattr(module, "__path__"):
        return False
    return importlib.machinery.PathFinder.find_spec(name, list(module.__path__)) is not None


class _Finder(importlib.abc.MetaPathFinder):
    """Finds ``adk_runtime`` modules as usual, and stubs each once it has run."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != _PACKAGE and not fullname.startswith(_PACKAGE + "."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        loader = spec.loader if spec is not None else None
        if spec is None or loader is None or not hasattr(loader, "exec_module"):
            return spec
        run = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            run(module)
            _stub(module)

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def pytest_configure() -> None:
    for name, module in list(sys.modules.items()):
        if name == _PACKAGE or name.startswith(_PACKAGE + "."):
            _stub(module)
    sys.meta_path.insert(0, _Finder())
