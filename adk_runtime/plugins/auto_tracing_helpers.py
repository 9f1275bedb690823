"""The pieces of :class:`~adk_runtime.plugins.auto_tracing_plugin.AutoTracingPlugin`.

:func:`build_tracing_wrapper` wraps one function (plain, ``async``, generator or async
generator) so that each call runs in an OpenTelemetry span named after it. What a span
carries:

- always: ``code.function.name`` (the function's module and qualified name); for a
  generator, ``adk.fn.yields`` (how many items it yielded); for a call that raised,
  ``error.type`` and ``adk.fn.exc_type`` (the exception's class name) and an error status.
  The exception's message and traceback are not recorded: they may quote user data.
- only with ``record_io=True`` (an explicit opt-in, off by default, as everywhere in
  :mod:`adk_runtime.telemetry`): the arguments (``adk.fn.arg.<name>``), the result
  (``adk.fn.return``; for a generator the count and the first items) and the exception's
  text (``adk.fn.exc_repr``), each rendered by :func:`safe_repr`. Arguments whose names mark
  secrets (``api_key``, ``token``, ``password`` ...) are left out, and credentials nested
  anywhere in a value are masked. Everything else a function is given or returns, prompts
  and payloads included, is recorded then: turn it on where traces may hold them.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import inspect
from collections.abc import AsyncGenerator, Callable, Generator, Sequence
from typing import TYPE_CHECKING, Any

from adk_runtime.plugins import _safe_repr

if TYPE_CHECKING:
    from opentelemetry.trace import Span, Tracer

__all__ = [
    "DEFAULT_MAX_RECORDED_YIELDS",
    "DEFAULT_MAX_REPR_LEN",
    "WRAPPED_ATTR",
    "Caps",
    "NamedArg",
    "StreamResult",
    "build_tracing_wrapper",
    "display_name_for",
    "name_value_pairs",
    "positional_param_names",
    "public_slot_names",
    "record_io_on_span",
    "safe_repr",
    "tracer_will_record",
]

DEFAULT_MAX_REPR_LEN = 4096
DEFAULT_MAX_RECORDED_YIELDS = 16
WRAPPED_ATTR = "_adk_auto_tracing_wrapped"
"""Set to True on every wrapper, so that a function is never wrapped twice."""

NamedArg = tuple[str, str]
"""An argument's name and its rendered value."""

_RECEIVERS = frozenset({"self", "cls"})
public_slot_names = _safe_repr.public_slot_names
is_secret_name = _safe_repr.is_secret_name


@dataclasses.dataclass(frozen=True)
class Caps:
    """Bounds of what a span records.

    Attributes:
        max_repr_len: The longest rendered value; a longer one is cut and says by how much.
        max_recorded_yields: How many of a generator's items are rendered in its result.
    """

    max_repr_len: int = DEFAULT_MAX_REPR_LEN
    max_recorded_yields: int = DEFAULT_MAX_RECORDED_YIELDS


class StreamResult:
    """What a generator yielded: the first items (up to the cap) and how many in all."""

    def __init__(self, items: Sequence[Any], caps: Caps, total: int) -> None:
        """Keep the sample.

        Args:
            items: The first items yielded.
            caps: The bounds the items are rendered within.
            total: How many items were yielded in all.
        """
        self.items = items
        self.caps = caps
        self.total = total

    def __repr__(self) -> str:
        """``<generator: N items yielded; first K: [...] ... + M more>``."""
        if not self.total:
            return "<generator: 0 items yielded>"
        shown = [safe_repr(item, self.caps) for item in self.items]
        rest = self.total - len(shown)
        more = f" ... + {rest} more" if rest > 0 else ""
        return (
            f"<generator: {self.total} items yielded; first {len(shown)}: "
            f"[{', '.join(shown)}]{more}>"
        )


def safe_repr(value: Any, caps: Caps) -> str:
    """``value`` as text for a span: credentials masked, cut at ``caps.max_repr_len``.

    Never raises; a value the walk cannot render is shown by its type name only.
    """
    return _safe_repr.render(value, caps.max_repr_len)


def positional_param_names(fn: Callable[..., Any]) -> tuple[str, ...]:
    """The names of the parameters of ``fn`` that can be passed by position (or ``()``)."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return ()
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return tuple(p.name for p in parameters if p.kind in kinds)


def name_value_pairs(
    param_names: Sequence[str], args: tuple[Any, ...], kwargs: dict[str, Any], caps: Caps
) -> list[NamedArg]:
    """The call's arguments by name, rendered; ``self``/``cls`` and secret names left out."""
    named = [
        (param_names[i] if i < len(param_names) else f"arg{i}", value)
        for i, value in enumerate(args)
    ]
    named.extend(kwargs.items())
    return [
        (name, safe_repr(value, caps))
        for name, value in named
        if name not in _RECEIVERS and not is_secret_name(name)
    ]


def record_io_on_span(
    span: Span, pairs: Sequence[NamedArg], result: Any, exc: BaseException | None, caps: Caps
) -> None:
    """Write the call's arguments and its result (or its exception's text) on ``span``.

    This is the content a span carries only with ``record_io=True``.
    """
    for name, text in pairs:
        if not is_secret_name(name):  # pairs may come from elsewhere than name_value_pairs
            span.set_attribute(f"adk.fn.arg.{name}", text)
    if exc is None:
        span.set_attribute("adk.fn.return", safe_repr(result, caps))
    else:
        span.set_attribute("adk.fn.exc_type", type(exc).__qualname__)
        span.set_attribute("adk.fn.exc_repr", safe_repr(exc, caps))


def display_name_for(fn: Callable[..., Any], owner: type | None = None) -> str:
    """The span name of ``fn``: ``Class.method`` for a method of ``owner``, else its name."""
    name = getattr(fn, "__name__", None) or type(fn).__name__
    return f"{owner.__name__}.{name}" if owner is not None else name


def tracer_will_record(tracer: Tracer) -> bool:
    """Whether ``tracer`` can record spans (it is not OpenTelemetry's no-op tracer)."""
    from opentelemetry import trace

    return not isinstance(tracer, trace.NoOpTracer)


def build_tracing_wrapper(
    fn: Callable[..., Any],
    tracer: Tracer,
    caps: Caps,
    *,
    record_io: bool = False,
    owner: type | None = None,
) -> Callable[..., Any]:
    """A function that calls ``fn`` in a span, of the same kind (sync, async, generator).

    The signature of ``fn`` is read once, here. A generator's span stays open until it is
    exhausted or closed, and is the current span only while the generator's own code runs.

    Args:
        fn: The function.
        tracer: Starts the spans; a no-op tracer gives ``fn`` back unwrapped.
        caps: Bounds of the recorded values.
        record_io: Record arguments, results and exception texts (see the module doc).
        owner: The class ``fn`` is a method of, for the span name.
    """
    if not tracer_will_record(tracer):
        return fn
    call = _Call(fn, tracer, caps, record_io, display_name_for(fn, owner))
    shaped: Callable[..., Any]
    if inspect.isasyncgenfunction(fn):
        shaped = call.async_generator_function()
    elif asyncio.iscoroutinefunction(fn):
        shaped = call.coroutine_function()
    elif inspect.isgeneratorfunction(fn):
        shaped = call.generator_function()
    else:
        shaped = call.plain_function()
    wrapper = functools.wraps(fn)(shaped)
    setattr(wrapper, WRAPPED_ATTR, True)
    return wrapper


class _Call:
    """The span logic of one wrapped function."""

    def __init__(
        self, fn: Callable[..., Any], tracer: Tracer, caps: Caps, record_io: bool, name: str
    ) -> None:
        from opentelemetry import trace

        self.fn, self.tracer, self.caps, self.record_io, self.name = (
            fn,
            tracer,
            caps,
            record_io,
            name,
        )
        self.trace = trace
        self.params = positional_param_names(fn) if record_io else ()
        qualified = f"{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', name)}"
        self.attributes = {"code.function.name": qualified}

    def _span(self) -> Span:
        return self.tracer.start_span(
            self.name,
            attributes=self.attributes,
            record_exception=False,
            set_status_on_exception=False,
        )

    def _current(self, span: Span) -> Any:
        return self.trace.use_span(span, record_exception=False, set_status_on_exception=False)

    def _finish(
        self, span: Span, args: Any, kwargs: Any, result: Any, exc: BaseException | None
    ) -> None:
        if isinstance(exc, GeneratorExit):  # the caller stopped early: not a failure
            exc = None
        if span.is_recording():
            if isinstance(result, StreamResult):
                span.set_attribute("adk.fn.yields", result.total)
            if exc is not None:
                kind = type(exc).__qualname__
                span.set_attribute("error.type", kind)
                span.set_attribute("adk.fn.exc_type", kind)
                span.set_status(self.trace.Status(self.trace.StatusCode.ERROR, kind))
            if self.record_io:
                pairs = name_value_pairs(self.params, args, kwargs, self.caps)
                record_io_on_span(span, pairs, result, exc, self.caps)
        span.end()

    def function(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        span = self._span()
        with self._current(span):
            try:
                result = self.fn(*args, **kwargs)
            except BaseException as exc:
                self._finish(span, args, kwargs, None, exc)
                raise
        self._finish(span, args, kwargs, result, None)
        return result

    async def coroutine(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        span = self._span()
        with self._current(span):
            try:
                result = await self.fn(*args, **kwargs)
            except BaseException as exc:
                self._finish(span, args, kwargs, None, exc)
                raise
        self._finish(span, args, kwargs, result, None)
        return result

    def generator(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Generator[Any, Any, Any]:
        span = self._span()
        sample: list[Any] = []
        total = 0
        try:
            with self._current(span):
                inner = self.fn(*args, **kwargs)
            sent: Any = None
            thrown: BaseException | None = None
            while True:
                with self._current(span):
                    try:
                        item = inner.send(sent) if thrown is None else inner.throw(thrown)
                    except StopIteration as stop:
                        result = stop.value
                        break
                total += 1
                if len(sample) < self.caps.max_recorded_yields:
                    sample.append(item)
                sent, thrown = None, None
                try:
                    sent = yield item
                except GeneratorExit:
                    inner.close()
                    raise
                except BaseException as exc:  # thrown in by the caller: pass it on
                    thrown = exc
        except BaseException as exc:
            self._finish(span, args, kwargs, StreamResult(sample, self.caps, total), exc)
            raise
        self._finish(span, args, kwargs, StreamResult(sample, self.caps, total), None)
        return result

    def plain_function(self) -> Callable[..., Any]:
        """A plain function running ``fn`` in a span."""

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            return self.function(args, kwargs)

        return wrapper

    def coroutine_function(self) -> Callable[..., Any]:
        """An ``async`` function running ``fn`` in a span."""

        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            return await self.coroutine(args, kwargs)

        return wrapper

    def generator_function(self) -> Callable[..., Generator[Any, Any, Any]]:
        """A generator function running ``fn`` in a span (``send`` and ``throw`` pass on)."""

        def wrapper(*args: Any, **kwargs: Any) -> Generator[Any, Any, Any]:
            return (yield from self.generator(args, kwargs))

        return wrapper

    def async_generator_function(self) -> Callable[..., AsyncGenerator[Any, Any]]:
        """An async generator function running ``fn`` in a span (there is no ``yield from``)."""
        call = self

        async def wrapper(*args: Any, **kwargs: Any) -> AsyncGenerator[Any, Any]:
            span = call._span()
            sample: list[Any] = []
            total = 0
            try:
                with call._current(span):
                    inner = call.fn(*args, **kwargs)
                sent: Any = None
                thrown: BaseException | None = None
                while True:
                    with call._current(span):
                        try:
                            step = inner.asend(sent) if thrown is None else inner.athrow(thrown)
                            item = await step
                        except StopAsyncIteration:
                            break
                    total += 1
                    if len(sample) < call.caps.max_recorded_yields:
                        sample.append(item)
                    sent, thrown = None, None
                    try:
                        sent = yield item
                    except GeneratorExit:
                        await inner.aclose()
                        raise
                    except BaseException as exc:  # thrown in by the caller: pass it on
                        thrown = exc
            except BaseException as exc:
                call._finish(span, args, kwargs, StreamResult(sample, call.caps, total), exc)
                raise
            call._finish(span, args, kwargs, StreamResult(sample, call.caps, total), None)

        return wrapper
