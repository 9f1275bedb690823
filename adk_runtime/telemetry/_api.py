"""The OpenTelemetry API's modules, where the otel extra is installed."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["otel_api"]


def otel_api(name: str) -> Any:
    """The module ``opentelemetry.<name>`` (``trace``, ``metrics``); None without the extra."""
    try:
        return importlib.import_module(f"opentelemetry.{name}")
    except ImportError:  # the otel extra is not installed: its spans and metrics are no-ops
        return None
