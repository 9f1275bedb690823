"""The helpers at google-adk's ``utils`` paths."""

from __future__ import annotations

import enum
import warnings
from pathlib import Path
from typing import Optional

import pytest
from google.genai import types
from pydantic import BaseModel

from adk_runtime.agents import CallbackContext, Context
from adk_runtime.code_executors import BuiltInCodeExecutor
from adk_runtime.errors import ConfigurationError
from adk_runtime.models import Gemini, LlmRequest
from adk_runtime.tools import ToolContext
from adk_runtime.utils import feature_decorator
from adk_runtime.utils.content_utils import (
    extract_text_from_content,
    filter_audio_parts,
    to_user_content,
)
from adk_runtime.utils.context_utils import find_context_parameter
from adk_runtime.utils.env_utils import is_enterprise_mode_enabled, is_env_enabled
from adk_runtime.utils.model_name_utils import (
    extract_model_name,
    is_gemini_eap_or_2_or_above,
    is_gemini_model_id_check_disabled,
)
from adk_runtime.utils.output_schema_utils import can_use_output_schema_with_tools
from adk_runtime.utils.yaml_utils import dump_pydantic_to_yaml, load_yaml_file


class _Switch(str, enum.Enum):
    ON = "on"


@pytest.mark.parametrize(
    ("value", "on"),
    [(" Yes ", True), ("ON", True), ("1", True), ("true", True), ("no", False), ("2", False)],
)
def test_env_switches(monkeypatch: pytest.MonkeyPatch, value: str, on: bool) -> None:
    monkeypatch.setenv("ADK_TEST_SWITCH", value)
    assert is_env_enabled("ADK_TEST_SWITCH") is on


def test_enterprise_mode_prefers_the_new_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
    monkeypatch.setenv("GOOGLE_GENAI_USE_ENTERPRISE", "yes")  # google-genai reads only 1/true
    assert is_enterprise_mode_enabled() is False
    monkeypatch.delenv("GOOGLE_GENAI_USE_ENTERPRISE")
    with pytest.warns(DeprecationWarning, match="GOOGLE_GENAI_USE_ENTERPRISE"):
        assert is_enterprise_mode_enabled() is True


def test_content_helpers() -> None:
    audio = types.Part.from_bytes(data=b"x", mime_type="audio/wav")
    content = types.Content(
        role="model",
        parts=[
            types.Part(text="a"),
            types.Part(text="t", thought=True),
            audio,
            types.Part(text="b"),
        ],
    )
    assert extract_text_from_content(content, " ") == "a b"
    assert extract_text_from_content(None) == ""
    filtered = filter_audio_parts(content)
    assert filtered is not None
    assert audio not in (filtered.parts or [])
    assert filter_audio_parts(types.Content(role="user", parts=[audio])) is None
    assert to_user_content({"city": "北京"}).parts == [types.Part(text='{"city": "北京"}')]
    assert to_user_content(content).role == "user"


class _Config(BaseModel):
    name: str
    prompt: Optional[str] = None  # noqa: UP045 - google-adk models use Optional
    tags: list[str] = []


def test_yaml_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "agent.yaml"
    dump_pydantic_to_yaml(_Config(name="a", prompt='line 1\nsay "hi"', tags=["x"]), path)
    assert path.read_text(encoding="utf-8") == (
        'name: a\nprompt: |-\n  line 1\n  say "hi"\ntags:\n  - x\n'
    )
    assert load_yaml_file(path) == {"name": "a", "prompt": 'line 1\nsay "hi"', "tags": ["x"]}
    with pytest.raises(FileNotFoundError):
        load_yaml_file(tmp_path / "none.yaml")


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gemini-2.5-flash", True),
        ("gemini-2", True),
        ("gemini-3.0-pro-preview", True),
        ("gemini-flash-lite-early-exp2", True),
        ("apigee/vertex_ai/v1/gemini-2.5-pro", True),
        ("projects/p/locations/l/publishers/google/models/gemini-2.0-flash", True),
        ("gemini-1.5-flash", False),
        ("gemini-2.", False),
        ("my-gemini-2.5", False),
        (None, False),
    ],
)
def test_gemini_2_or_later(model: str | None, expected: bool) -> None:
    assert is_gemini_eap_or_2_or_above(model) is expected


def test_apigee_paths_give_the_model_id() -> None:
    assert extract_model_name("apigee/gemini/v1/gemini-2.5-flash") == "gemini-2.5-flash"
    assert extract_model_name("apigee/claude-x") == "claude-x"


def test_built_in_code_execution_needs_gemini_2_unless_the_check_is_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ADK_DISABLE_GEMINI_MODEL_ID_CHECK", raising=False)
    with pytest.raises(ConfigurationError, match="Gemini 2 or later"):
        BuiltInCodeExecutor().process_llm_request(LlmRequest(model="gemini-1.5-pro"))
    monkeypatch.setenv("ADK_DISABLE_GEMINI_MODEL_ID_CHECK", "on")
    assert is_gemini_model_id_check_disabled()
    request = LlmRequest(model="internal-model")
    BuiltInCodeExecutor().process_llm_request(request)
    assert request.config.tools == [types.Tool(code_execution=types.ToolCodeExecution())]


def test_find_context_parameter() -> None:
    def by_alias(query: str, ctx: Context) -> str:
        return query

    def optional(query: str, tool_context: Optional[ToolContext] = None) -> str:  # noqa: UP045
        return query

    def callback(callback_context: "CallbackContext") -> None:  # noqa: UP037
        return None

    def plain(query, ctx):  # type: ignore[no-untyped-def]
        return query

    assert [find_context_parameter(f) for f in (by_alias, optional, callback, plain, None)] == [
        "ctx",
        "tool_context",
        "callback_context",
        None,
        None,
    ]
    find_context_parameter.cache_clear()


def test_output_schema_with_tools(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_GENAI_USE_ENTERPRISE", "1")
    with pytest.warns(DeprecationWarning, match="capabilities"):
        assert can_use_output_schema_with_tools("gemini-2.5-pro")
    with pytest.warns(DeprecationWarning, match="capabilities"):
        assert can_use_output_schema_with_tools(Gemini(model="gemini-2.5-flash"))
    with pytest.warns(DeprecationWarning, match="capabilities"):
        assert not can_use_output_schema_with_tools("claude-sonnet-4")
    monkeypatch.setenv("GOOGLE_GENAI_USE_ENTERPRISE", "0")
    with pytest.warns(DeprecationWarning, match="capabilities"):
        assert not can_use_output_schema_with_tools("gemini-2.5-pro")


def test_feature_decorators(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ADK_SUPPRESS_EXPERIMENTAL_FEATURE_WARNINGS", raising=False)
    monkeypatch.delenv("ADK_ALLOW_WIP_FEATURES", raising=False)

    @feature_decorator.experimental("may change")
    class Trial:
        def __init__(self, value: int) -> None:
            self.value = value

    @feature_decorator.working_in_progress
    def unfinished() -> str:
        return "done"

    with pytest.warns(UserWarning, match=r"^\[EXPERIMENTAL\] Trial: may change$") as seen:
        assert Trial(3).value == 3
    assert seen[0].filename == __file__  # the warning points at the caller's line
    # Python's filters decide: under "error" every use raises, not only the first
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(2):
            with pytest.raises(UserWarning, match="Trial"):
                Trial(4)
    for off in ("false", "0", ""):  # only a true value silences it
        monkeypatch.setenv("ADK_SUPPRESS_EXPERIMENTAL_FEATURE_WARNINGS", off)
        with pytest.warns(UserWarning, match="Trial"):
            Trial(5)
    monkeypatch.setenv("ADK_SUPPRESS_EXPERIMENTAL_FEATURE_WARNINGS", "true")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert Trial(6).value == 6
    with pytest.raises(RuntimeError, match=r"^\[WIP\] unfinished: "):
        unfinished()
    monkeypatch.setenv("ADK_ALLOW_WIP_FEATURES", "true")
    assert unfinished() == "done"
    with pytest.raises(TypeError, match="takes a message"):
        feature_decorator.experimental(_Switch.ON)
