"""utils.model_name_utils: one model id in every spelling, and its family."""

from __future__ import annotations

import pytest

from adk_runtime.utils.model_name_utils import (
    extract_model_name,
    is_gemini_1_model,
    is_gemini_model,
)


@pytest.mark.parametrize(
    ("spelling", "model_id"),
    [
        ("gemini-2.5-flash", "gemini-2.5-flash"),
        ("models/gemini-2.5-flash", "gemini-2.5-flash"),
        ("projects/p/locations/l/publishers/google/models/gemini-1.5-pro", "gemini-1.5-pro"),
        ("gemini/gemini-2.0-flash", "gemini-2.0-flash"),
        ("projects/p/locations/l/endpoints/123", "projects/p/locations/l/endpoints/123"),
        ("claude-3-opus", "claude-3-opus"),
    ],
)
def test_every_spelling_gives_the_bare_id(spelling: str, model_id: str) -> None:
    assert extract_model_name(spelling) == model_id


def test_families() -> None:
    assert is_gemini_model("projects/p/locations/l/publishers/google/models/gemini-2.5-pro")
    assert not is_gemini_model("claude-3-opus")
    assert not is_gemini_model(None)
    assert is_gemini_1_model("models/gemini-1.5-flash")
    assert not is_gemini_1_model("gemini-2.5-flash")
    assert not is_gemini_1_model("gemini-10-flash")
    assert not is_gemini_1_model("")
