"""Keep stored values out of the drivers' DEBUG log lines.

State values and event payloads may hold anything a user said. SQLAlchemy's engine is built
with ``hide_parameters=True`` (no SQL parameters in log lines or error messages); two more
places log values at DEBUG and are filtered here: aiosqlite logs every call it runs with its
arguments (the SQL parameters), and SQLAlchemy logs every result row. The call's name and the
word "Row" stay, the values do not.
"""

from __future__ import annotations

import logging
from typing import Any

__all__ = ["hide_values_in_driver_logs"]

_LOGGERS = ("aiosqlite", "sqlalchemy.engine.Engine")


class _HideValues(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.startswith("sqlalchemy"):
            if isinstance(record.msg, str) and record.msg.startswith("Row"):
                record.msg, record.args = "Row (values hidden)", ()
        elif isinstance(record.args, tuple):
            record.args = tuple(_call_name(arg) for arg in record.args)
        return True


def _call_name(arg: Any) -> Any:
    func = getattr(arg, "func", None)  # aiosqlite logs functools.partial(method, *args)
    if func is None:
        return arg
    return getattr(func, "__qualname__", None) or type(func).__name__


_FILTER = _HideValues()


def hide_values_in_driver_logs() -> None:
    """Install the filter on the driver loggers (idempotent)."""
    for name in _LOGGERS:
        logging.getLogger(name).addFilter(_FILTER)
