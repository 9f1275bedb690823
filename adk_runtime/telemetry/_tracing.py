"""Spans through the OpenTelemetry API, free when no SDK is configured.

A span is only started when the global tracer provider is a real one (an SDK's); the check
is one ``isinstance`` per call, and attributes are built by a callable only then, so a
process without an SDK pays a function call and no allocation of attributes.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any


def _load_api() -> Any:
    try:
        from opentelemetry import trace
    except ImportError:  # the otel extra is not installed: every span is a no-op
        return None
    return trace


_trace: Any = _load_api()

Attributes = Mapping[str, str | int | float | bool]
_NAME = "adk_runtime"


def tracing_enabled() -> bool:
    """True when an OpenTelemetry SDK (a real tracer provider) is configured."""
    if _trace is None:
        return False
    provider = _trace.get_tracer_provider()
    return not isinstance(provider, (_trace.ProxyTracerProvider, _trace.NoOpTracerProvider))


@contextlib.contextmanager
def span(name: str, attributes: Callable[[], Attributes] | None = None) -> Iterator[Any | None]:
    """Run the block in a span named ``name`` (a child of the current span).

    Args:
        name: The span name (``invoke_agent root``, ``call_llm``, ``execute_tool x`` ...).
        attributes: Builds the span's attributes; called only when tracing is on. Never
            put state values, event payloads or credentials in them.

    Yields:
        The span (set more attributes with ``set_attribute``), or None when tracing is off.
        An exception leaving the block is recorded and the span's status set to error.
    """
    if not tracing_enabled():
        yield None
        return
    tracer = _trace.get_tracer(_NAME)
    with tracer.start_as_current_span(
        name, attributes=dict(attributes()) if attributes else None
    ) as current:
        yield current


def store_span(
    operation: str, backend: str, attributes: Callable[[], Attributes] | None = None
) -> contextlib.AbstractContextManager[Any | None]:
    """A span of one session-store operation.

    The operation is one of ``create``, ``get``, ``list``, ``delete``, ``append``.

    Args:
        operation: The operation.
        backend: The store's class name (``SqlSessionService``, ...).
        attributes: More attributes (ids, revisions, counts), built only when tracing is on.
    """

    def build() -> Attributes:
        base: dict[str, str | int | float | bool] = {
            "db.operation.name": operation,
            "adk.store.backend": backend,
        }
        if attributes is not None:
            base.update(attributes())
        return base

    return span(f"session_store.{operation}", build)
