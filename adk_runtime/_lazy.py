"""Names a package loads on first use: its module ``__getattr__`` built from a table (PEP 562).

A package that keeps a heavy or optional import off its own import path lists those names in
a table, name → the module that defines it under that name::

    __getattr__ = lazy_getattr(__name__, {"RedisSessionService": "adk_runtime.sessions.redis"})

and also imports each of them under ``TYPE_CHECKING``: type checkers then know the names, and
import-linter sees the edge the table makes (``tests/unit/test_layers.py`` reads the table
and checks both). So a table can only point where a plain import may. A name from an upper
layer is not put in a table: its package writes a ``def __getattr__`` with the import
statement, which import-linter sees and the contract's ``ignore_imports`` excuses.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_getattr"]


def lazy_getattr(
    package: str, names: Mapping[str, str], *, extras: Mapping[str, str] | None = None
) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` that imports ``names[name]`` on first use.

    Args:
        package: The package's ``__name__``.
        names: Attribute name → the module that defines it under the same name.
        extras: Module → the pip extra it needs: an ``ImportError`` while importing that
            module becomes one that says which extra to install.

    Returns:
        The function to bind to the package's ``__getattr__``: it raises ``AttributeError``
        for a name not in ``names``.
    """
    table = dict(names)
    extra_of = dict(extras or {})

    def __getattr__(name: str) -> Any:
        module_name = table.get(name)
        if module_name is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            extra = extra_of.get(module_name)
            if extra is None:
                raise
            raise ImportError(
                f"{package}.{name} needs an optional dependency that is not installed "
                f"({exc.name or exc}): pip install 'adk-runtime[{extra}]'"
            ) from exc
        return getattr(module, name)

    return __getattr__
