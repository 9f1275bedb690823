"""AutoTracingPlugin: spans of your own functions, with content only when asked for."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import sys
import types as pytypes
from collections.abc import Iterator
from typing import Any

import pytest
from google.genai import types
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic import BaseModel

from adk_runtime.agents import LlmAgent
from adk_runtime.apps import App
from adk_runtime.auth.auth_credential import AuthCredential, AuthCredentialTypes
from adk_runtime.plugins.auto_tracing_helpers import Caps, safe_repr
from adk_runtime.plugins.auto_tracing_plugin import AutoTracingPlugin
from adk_runtime.runners import Runner
from adk_runtime.sessions import InMemorySessionService
from adk_runtime.testing import ScriptedModel, function_call

SECRET = "hunter2-do-not-log"
_names = itertools.count()

SOURCE = '''
import asyncio

def normalize(city, api_key=None):
    return city.strip().title()

def lookup(city: str) -> str:
    """Look up the weather."""
    return "sunny in " + normalize(city, api_key="k-" + city)

def explode(reason):
    raise ValueError("bad " + reason)

def counter(n):
    total = 0
    for i in range(n):
        got = yield i
        total += got or 0
    return total

async def ticks(n, closed):
    try:
        for i in range(n):
            await asyncio.sleep(0)
            yield i
    finally:
        closed.append(True)

class Sky:
    @staticmethod
    def colour(hour):
        return "blue" if hour < 18 else "red"

    @classmethod
    def make(cls):
        return cls()

    def describe(self, city):
        return city + " " + self.colour(12)
'''


@pytest.fixture
def app_module() -> Iterator[pytypes.ModuleType]:
    """A module of 'your code', loaded fresh for each test and forgotten after it."""
    name = f"auto_tracing_app_{next(_names)}"
    module = pytypes.ModuleType(name)
    sys.modules[name] = module
    exec(compile(SOURCE, f"<{name}>", "exec"), module.__dict__)
    yield module
    sys.modules.pop(name, None)


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


@pytest.fixture
def tracer(exporter: InMemorySpanExporter) -> trace.Tracer:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider.get_tracer("test")


def instrument(
    module: pytypes.ModuleType, tracer: trace.Tracer, **kwargs: Any
) -> AutoTracingPlugin:
    plugin = AutoTracingPlugin(tracer=tracer, extra_scope_prefixes=(module.__name__,), **kwargs)
    asyncio.run(plugin.before_run_callback(invocation_context=None))  # type: ignore[arg-type]
    return plugin


def one(exporter: InMemorySpanExporter, name: str) -> ReadableSpan:
    [found] = [s for s in exporter.get_finished_spans() if s.name == name]
    return found


def all_text(exporter: InMemorySpanExporter) -> str:
    return json.dumps(
        [dict(s.attributes or {}) for s in exporter.get_finished_spans()], default=str
    ) + " ".join(str(s.status.description) for s in exporter.get_finished_spans())


async def test_a_run_traces_the_agents_code_without_its_content(
    app_module: pytypes.ModuleType, spans: InMemorySpanExporter
) -> None:
    # No tracer given: the global provider (set by tests/telemetry/conftest.py) is used, and
    # the module comes into scope because the agent's tool function is defined in it.
    model = ScriptedModel(replies=[function_call("lookup", {"city": f" oslo {SECRET}"}), "ok"])
    agent = LlmAgent(name="weather", model=model, tools=[app_module.lookup])
    app = App(name="app", root_agent=agent, plugins=[AutoTracingPlugin()])
    runner = Runner(app=app, session_service=InMemorySessionService())
    await runner.session_service.create_session(app_name="app", user_id="u", session_id="s")
    message = types.Content(role="user", parts=[types.Part(text="weather?")])
    async for _ in runner.run_async(user_id="u", session_id="s", new_message=message):
        pass
    finished = spans.get_finished_spans()
    normalize = one(spans, "normalize")
    tool = one(spans, "execute_tool lookup")
    assert normalize.parent is not None
    assert tool.context is not None
    assert normalize.parent.span_id == tool.context.span_id
    attributes = dict(normalize.attributes or {})
    assert attributes == {"code.function.name": f"{app_module.__name__}.normalize"}
    assert SECRET not in json.dumps([dict(s.attributes or {}) for s in finished], default=str)
    # adk_runtime's own code is never brought into scope by the walk
    assert not any(s.name.startswith(("LlmAgent.", "FunctionTool.")) for s in finished)


def test_io_is_recorded_only_when_asked_and_secrets_never(
    app_module: pytypes.ModuleType, tracer: trace.Tracer, exporter: InMemorySpanExporter
) -> None:
    instrument(app_module, tracer, record_io=True)
    assert app_module.lookup(" oslo ") == "sunny in Oslo"
    attributes = dict(one(exporter, "normalize").attributes or {})
    assert attributes["adk.fn.arg.city"] == "' oslo '"
    assert attributes["adk.fn.return"] == "'Oslo'"
    assert not any("api_key" in key for key in attributes)  # a secret's name: left out
    assert "k- oslo" not in all_text(exporter)


def test_failures_say_their_type_only_by_default(
    app_module: pytypes.ModuleType, tracer: trace.Tracer, exporter: InMemorySpanExporter
) -> None:
    instrument(app_module, tracer)
    with pytest.raises(ValueError, match=SECRET):
        app_module.explode(SECRET)
    span = one(exporter, "explode")
    assert span.status.status_code == trace.StatusCode.ERROR
    assert dict(span.attributes or {})["error.type"] == "ValueError"
    assert SECRET not in all_text(exporter)
    assert not span.events  # no exception event with its message and traceback


def test_methods_static_and_class_methods_stay_callable(
    app_module: pytypes.ModuleType, tracer: trace.Tracer, exporter: InMemorySpanExporter
) -> None:
    instrument(app_module, tracer)
    sky = app_module.Sky.make()
    assert sky.describe("Oslo") == "Oslo blue"
    assert app_module.Sky.colour(20) == "red"
    names = [s.name for s in exporter.get_finished_spans()]
    assert names == ["Sky.make", "Sky.colour", "Sky.describe", "Sky.colour"]
    describe = one(exporter, "Sky.describe")
    nested = [s for s in exporter.get_finished_spans() if s.parent is not None]
    assert [s.parent.span_id for s in nested] == [describe.context.span_id]  # type: ignore[union-attr]


def test_generators_keep_send_and_their_result(
    app_module: pytypes.ModuleType, tracer: trace.Tracer, exporter: InMemorySpanExporter
) -> None:
    instrument(app_module, tracer, record_io=True, max_recorded_yields=2)
    gen = app_module.counter(4)
    got = [next(gen), gen.send(10), gen.send(10), gen.send(10)]
    with pytest.raises(StopIteration) as stop:
        gen.send(10)
    assert got == [0, 1, 2, 3]
    assert stop.value.value == 40  # the four values sent back
    attributes = dict(one(exporter, "counter").attributes or {})
    assert attributes["adk.fn.yields"] == 4
    assert (
        attributes["adk.fn.return"] == "<generator: 4 items yielded; first 2: [0, 1] ... + 2 more>"
    )


def test_an_async_generator_closed_early_closes_its_inner_one(
    app_module: pytypes.ModuleType, tracer: trace.Tracer, exporter: InMemorySpanExporter
) -> None:
    instrument(app_module, tracer)
    closed: list[bool] = []

    async def take_two() -> list[int]:
        ticks = app_module.ticks(100, closed)
        first = [await anext(ticks), await anext(ticks)]
        await ticks.aclose()
        return first

    assert asyncio.run(take_two()) == [0, 1]
    assert closed == [True]
    span = one(exporter, "ticks")
    assert dict(span.attributes or {})["adk.fn.yields"] == 2
    assert span.status.status_code != trace.StatusCode.ERROR  # stopping early is no failure


def test_nothing_is_wrapped_without_a_recording_tracer(app_module: pytypes.ModuleType) -> None:
    original = app_module.lookup
    instrument(app_module, trace.NoOpTracer())
    assert app_module.lookup is original


def test_library_code_reachable_from_the_agent_is_left_alone(
    app_module: pytypes.ModuleType, tracer: trace.Tracer
) -> None:
    dumps = json.dumps

    class Context:
        agent = pytypes.SimpleNamespace(encoder=json.JSONEncoder(), tool=app_module.Sky())

    plugin = AutoTracingPlugin(tracer=tracer)
    asyncio.run(plugin.before_run_callback(invocation_context=Context()))  # type: ignore[arg-type]
    assert json.dumps is dumps
    assert getattr(app_module.normalize, "_adk_auto_tracing_wrapped", False)


@dataclasses.dataclass
class Login:
    user: str
    password: str


class Settings(BaseModel):
    name: str
    client_secret: str
    headers: dict[str, str]


class Client:
    def __init__(self) -> None:
        self.host = "example.org"
        self._token = SECRET

    def __repr__(self) -> str:
        return f"Client({self.host}, {self._token})"


@pytest.mark.parametrize(
    "value",
    [
        {"user": "ann", "nested": [{"Authorization": f"Bearer {SECRET}"}]},
        Login(user="ann", password=SECRET),
        Settings(name="s", client_secret=SECRET, headers={"X-Api-Key": SECRET}),
        AuthCredential(auth_type=AuthCredentialTypes.API_KEY, api_key=SECRET),
        Client(),
        (SECRET[:0], {"refresh_token": SECRET}),
    ],
)
def test_safe_repr_masks_secrets_at_any_depth(value: Any) -> None:
    text = safe_repr(value, Caps())
    assert SECRET not in text
    assert text


def test_safe_repr_is_bounded() -> None:
    loop: list[Any] = []
    loop.append(loop)
    assert "..." in safe_repr(loop, Caps())
    text = safe_repr("x" * 100, Caps(max_repr_len=10))
    assert text.endswith("...[92 more chars]")
    assert safe_repr(Login(user="ann", password="p"), Caps()) == "Login(user='ann', password=<str>)"
