"""Spans through the OpenTelemetry API, free when no SDK is configured.

A span is only started when the global tracer provider is a real one (an SDK's); the check
asks the API's public getter, and attributes are built by a callable only then, so a
process without an SDK pays that question and no allocation of attributes.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from adk_runtime.telemetry._api import otel_api

_trace: Any = otel_api("trace")  # None: every span is a no-op

Attributes = Mapping[str, str | int | float | bool]
_NAME = "adk_runtime"


_enabled = False


def tracing_enabled() -> bool:
    """True when an OpenTelemetry SDK (a real tracer provider) is configured.

    A provider can be set only once per process, so a positive answer is kept. Until then
    the API's public getter is asked on every call (it honours ``OTEL_PYTHON_TRACER_PROVIDER``).
    """
    global _enabled
    if _enabled:
        return True
    if _trace is None:
        return False
    provider = _trace.get_tracer_provider()
    _enabled = not isinstance(provider, (_trace.ProxyTracerProvider, _trace.NoOpTracerProvider))
    return _enabled


_OFF: contextlib.nullcontext[None] = contextlib.nullcontext()


def span(
    name: str, attributes: Callable[[], Attributes] | None = None
) -> contextlib.AbstractContextManager[Any | None]:
    """Run the block in a span named ``name`` (a child of the current span).

    Args:
        name: The span name (``invocation``, ``invoke_agent x``, ``execute_tool x`` ...).
        attributes: Builds the span's attributes; called only when tracing is on. Never
            put state values, event payloads or credentials in them.

    Returns:
        A context manager yielding the span (set more attributes with ``set_attribute``),
        or None when tracing is off (then nothing is allocated). An exception leaving the
        block sets the span's status to error and ``error.type`` to its class name (its
        message and traceback, which may quote user data, are not recorded).
    """
    if not tracing_enabled():
        return _OFF
    return _real_span(name, dict(attributes()) if attributes else None)


@contextlib.contextmanager
def _real_span(name: str, attributes: dict[str, Any] | None) -> Iterator[Any]:
    """A current span; a failure records only its type (``error.type``), never its text."""
    tracer = _trace.get_tracer(_NAME)
    with tracer.start_as_current_span(
        name, attributes=attributes, record_exception=False, set_status_on_exception=False
    ) as current:
        try:
            yield current
        except BaseException as exc:
            if not isinstance(exc, GeneratorExit):
                current.set_attribute("error.type", type(exc).__name__)
                current.set_status(_trace.Status(_trace.StatusCode.ERROR, type(exc).__name__))
            raise


def store_span(
    operation: str,
    backend: str,
    attributes: Callable[[], Attributes] | None = None,
    *,
    db_system: str | None = None,
) -> contextlib.AbstractContextManager[Any | None]:
    """A span of one session-store operation.

    The operation is one of ``create``, ``get``, ``list``, ``delete``, ``append``,
    ``start`` (a turn's claim, read and message in one step).

    Args:
        operation: The operation.
        backend: The store's class name (``DatabaseSessionService``, ...).
        attributes: More attributes (ids, revisions, counts), built only when tracing is on.
        db_system: OpenTelemetry's ``db.system.name`` of the database (``sqlite``,
            ``postgresql``, ``redis``); None for an in-process store (no attribute).
    """
    if not tracing_enabled():
        return _OFF

    def build() -> Attributes:
        base: dict[str, str | int | float | bool] = {
            "db.operation.name": operation,
            "adk.store.backend": backend,
        }
        if db_system is not None:
            base["db.system.name"] = db_system
        if attributes is not None:
            base.update(attributes())
        return base

    return span(f"session_store.{operation}", build)
