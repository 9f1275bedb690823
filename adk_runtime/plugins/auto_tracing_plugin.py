"""A plugin that traces the calls of your own code, function by function.

Give ``AutoTracingPlugin()`` to the Runner (``Runner(plugins=[...])`` or
``App(plugins=[...])``). Before each run it wraps the public functions and the methods of
the public classes of every loaded module in scope, so that each call runs in an
OpenTelemetry span (see :mod:`adk_runtime.plugins.auto_tracing_helpers` for what a span
carries; arguments and results only with ``record_io=True``). In scope are:

- the modules under ``extra_scope_prefixes`` (``"my_app."`` is every module of
  ``my_app``; ``"my_app"`` alone also ``my_app`` itself);
- the packages of the objects reachable from the invocation's agent (its tools' functions,
  callbacks, sub-agents ...), found by walking their public attributes without running a
  property. Library code is left out of that walk: the standard library, installed packages
  (``site-packages``) and adk_runtime itself; name such a package in
  ``extra_scope_prefixes`` to trace it.

Wrapping replaces module and class attributes, so calls made through a name imported
before the first run (``from my_app.tools import f``) are not traced. A function is wrapped
once, whatever the number of runs. Without a tracer, the plugin traces through the global
tracer provider and does nothing while no OpenTelemetry SDK is configured.
"""

from __future__ import annotations

import inspect
import logging
import os
import sys
import sysconfig
import threading
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

from google.genai import types

from adk_runtime import telemetry
from adk_runtime.core.base_plugin import BasePlugin
from adk_runtime.plugins import auto_tracing_helpers

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer

    from adk_runtime.core.invocation_context import InvocationContext

__all__ = ["DEFAULT_MAX_WALK_DEPTH", "AutoTracingPlugin"]

logger = logging.getLogger(__name__)

DEFAULT_MAX_WALK_DEPTH = 30
"""How deep the walk from the agent goes through attributes and containers."""

_OWN_MODULES = frozenset(
    {__name__, auto_tracing_helpers.__name__, "adk_runtime.plugins._safe_repr"}
)
_SKIPPED = (str, bytes, int, float, bool, complex, type(None), ModuleType)
_LIBRARY_TOPS = frozenset({"adk_runtime", "builtins", "__future__"})


class AutoTracingPlugin(BasePlugin):
    """Wraps the functions of your code in OpenTelemetry spans before each run."""

    def __init__(
        self,
        *,
        name: str = "AutoTracingPlugin",
        extra_scope_prefixes: tuple[str, ...] = (),
        tracer: Tracer | None = None,
        max_repr_len: int = auto_tracing_helpers.DEFAULT_MAX_REPR_LEN,
        max_recorded_yields: int = auto_tracing_helpers.DEFAULT_MAX_RECORDED_YIELDS,
        max_walk_depth: int = DEFAULT_MAX_WALK_DEPTH,
        record_io: bool = False,
    ) -> None:
        """Create the plugin.

        Args:
            name: The plugin's name.
            extra_scope_prefixes: Module name prefixes to trace besides the agent's packages.
            tracer: The tracer of the spans; by default the global provider's (and nothing
                is wrapped while no OpenTelemetry SDK is configured).
            max_repr_len: The longest recorded value (with ``record_io``).
            max_recorded_yields: How many items of a generator are recorded (with
                ``record_io``).
            max_walk_depth: How deep the walk from the agent goes.
            record_io: Record arguments, results and exception texts on the spans. Off by
                default: they may hold prompts, user data and payloads (secrets are masked
                either way).
        """
        super().__init__(name=name)
        self._scope_prefixes = tuple(extra_scope_prefixes)
        self._tracer = tracer
        self._bound: Tracer | None = None  # the tracer the wrappers use, once known
        self._caps = auto_tracing_helpers.Caps(
            max_repr_len=max_repr_len, max_recorded_yields=max_recorded_yields
        )
        self._max_walk_depth = max_walk_depth
        self._record_io = record_io
        self._lock = threading.Lock()
        self._wrapped_modules: set[str] = set()

    def _resolve_tracer(self) -> Tracer | None:
        if self._tracer is not None:
            return self._tracer if auto_tracing_helpers.tracer_will_record(self._tracer) else None
        if not telemetry.tracing_enabled():
            return None
        from opentelemetry import trace

        return trace.get_tracer("adk_runtime")

    async def before_run_callback(
        self, *, invocation_context: InvocationContext
    ) -> types.Content | None:
        """Bring the agent's packages into scope and wrap the in-scope modules not yet wrapped.

        Returns:
            None: the run goes on.
        """
        tracer = self._bound or self._resolve_tracer()
        if tracer is None:
            return None
        with self._lock:
            self._bound = tracer
            self._add_agent_scope(invocation_context)
            for module_name in list(sys.modules):
                if module_name in self._wrapped_modules or module_name in _OWN_MODULES:
                    continue
                if not module_name.startswith(self._scope_prefixes):
                    continue
                module = sys.modules.get(module_name)
                if module is None:  # unloaded since the list was taken
                    continue
                try:
                    self._wrap_module(module)
                except Exception:
                    logger.exception("Auto-tracing could not wrap module %s.", module_name)
                self._wrapped_modules.add(module_name)
        return None

    def _add_agent_scope(self, invocation_context: InvocationContext | None) -> None:
        """Add the packages of the objects reachable from the invocation's agent."""
        found: set[str] = set()
        seen: set[int] = set()
        pending: list[tuple[Any, int]] = [(getattr(invocation_context, "agent", None), 0)]
        while pending:
            obj, depth = pending.pop()
            if isinstance(obj, _SKIPPED) or depth > self._max_walk_depth:
                continue
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            module = getattr(obj, "__module__", None) or getattr(
                getattr(obj, "func", None), "__module__", None
            )
            if isinstance(module, str) and module and not _is_library(module):
                found.update(_prefixes(module))
            pending.extend((child, depth + 1) for child in _children(obj))
        new = sorted(found.difference(self._scope_prefixes))
        self._scope_prefixes += tuple(new)

    def _wrap_module(self, module: ModuleType) -> None:
        """Wrap the module's public functions and the methods of its public classes."""
        module_name = module.__name__
        for attr_name, attr in list(vars(module).items()):
            if attr_name.startswith("_") or getattr(attr, "__module__", None) != module_name:
                continue
            if inspect.isfunction(attr):
                self._rebind(module, attr_name, attr)
            elif inspect.isclass(attr):
                for klass in attr.__mro__:
                    if klass.__module__ == module_name:
                        self._wrap_class(klass, module_name)

    def _wrap_class(self, klass: type, module_name: str) -> None:
        for member_name, member in list(vars(klass).items()):
            if member_name.startswith("__"):
                continue
            kind: Callable[[Any], Any] | None = None
            if isinstance(member, staticmethod | classmethod):
                kind, member = type(member), member.__func__
            if inspect.isfunction(member) and member.__module__ == module_name:
                self._rebind(klass, member_name, member, kind)

    def _rebind(
        self,
        owner: ModuleType | type,
        name: str,
        fn: Callable[..., Any],
        kind: Callable[[Any], Any] | None = None,
    ) -> None:
        if getattr(fn, auto_tracing_helpers.WRAPPED_ATTR, False) or self._bound is None:
            return
        wrapper = auto_tracing_helpers.build_tracing_wrapper(
            fn,
            self._bound,
            self._caps,
            record_io=self._record_io,
            owner=owner if isinstance(owner, type) else None,
        )
        try:
            setattr(owner, name, kind(wrapper) if kind is not None else wrapper)
        except (AttributeError, TypeError) as exc:
            logger.info("Auto-tracing cannot replace %s.%s: %s", owner.__name__, name, exc)


def _children(obj: Any) -> list[Any]:
    """What the walk visits under ``obj``: items, values, public attributes and slots."""
    if isinstance(obj, list | tuple | set | frozenset):
        return list(obj)
    if isinstance(obj, dict):
        return list(obj.values())
    children: list[Any] = []
    held = getattr(obj, "__dict__", None)  # read directly: no property or lazy attribute runs
    if isinstance(held, dict):
        children.extend(value for key, value in held.items() if not str(key).startswith("_"))
    for slot in auto_tracing_helpers.public_slot_names(type(obj)):
        try:
            children.append(getattr(obj, slot))
        except AttributeError:
            continue
    return children


def _prefixes(module: str) -> tuple[str, ...]:
    """The scope prefixes of the package ``module`` is in (a top-level module: itself)."""
    package, dot, _ = module.rpartition(".")
    return (package + ".",) if dot else (module, module + ".")


def _library_roots() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    roots = {paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths}
    return tuple(os.path.join(os.path.realpath(root), "") for root in roots)


_ROOTS = _library_roots()


def _is_library(module: str) -> bool:
    """Whether ``module`` is library code: stdlib, an installed package or adk_runtime."""
    top = module.partition(".")[0]
    if top in _LIBRARY_TOPS or top in sys.stdlib_module_names:
        return True
    loaded = sys.modules.get(top)
    location = getattr(loaded, "__file__", None)
    if not location:
        return False
    real = os.path.realpath(location)
    parts = set(real.split(os.sep))
    return "site-packages" in parts or "dist-packages" in parts or real.startswith(_ROOTS)
