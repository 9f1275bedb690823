"""The ``adk-runtime`` command line (click; rich for tables and progress): the ``cli`` extra.

Without the extra installed, the command says in one line how to install it.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

__all__ = ["main"]

main: Callable[..., Any]

if importlib.util.find_spec("click") is None or importlib.util.find_spec("rich") is None:

    def _missing_extra(*_args: Any, **_kwargs: Any) -> None:
        raise SystemExit(
            "adk-runtime's command line needs the 'cli' extra: pip install 'adk-runtime[cli]'"
        )

    main = _missing_extra
else:
    from adk_runtime.cli._main import main
