"""``artifacts.artifact_util``: the ``artifact://`` URI form and the id checks."""

from __future__ import annotations

from typing import Any

import pytest
from google.genai import types

from adk_runtime.artifacts import artifact_util
from adk_runtime.artifacts.artifact_util import ParsedArtifactUri
from adk_runtime.errors import InputValidationError


@pytest.mark.parametrize(
    "parsed",
    [
        ParsedArtifactUri("app", "alice", "s1", "report.txt", 0),
        ParsedArtifactUri("app", "alice", "s1", "dir/sub/report.txt", 12),
        ParsedArtifactUri("app", "team/alice", "s1", "a/sessions/b", 3),
        ParsedArtifactUri("app", "alice", None, "user:profile.png", 7),
    ],
)
def test_uris_round_trip(parsed: ParsedArtifactUri) -> None:
    uri = artifact_util.get_artifact_uri(
        parsed.app_name, parsed.user_id, parsed.filename, parsed.version, parsed.session_id
    )
    assert uri.startswith("artifact://apps/")
    assert artifact_util.parse_artifact_uri(uri) == parsed


@pytest.mark.parametrize(
    "uri",
    [
        "",
        "memory://apps/a/users/u/artifacts/f/versions/0",
        "artifact://apps/a/users/u/artifacts/f",
        "artifact://apps/a/users/u/artifacts/f/versions/x",
        "artifact://apps/a/users/u/artifacts/f/versions/1/more",
        "artifact://a/u/artifacts/f/versions/1",
    ],
)
def test_malformed_uris_do_not_parse(uri: str) -> None:
    assert artifact_util.parse_artifact_uri(uri) is None


def test_only_artifact_file_uris_are_references() -> None:
    def file_part(uri: str) -> types.Part:
        return types.Part(file_data=types.FileData(file_uri=uri, mime_type="text/plain"))

    assert artifact_util.is_artifact_ref(file_part("artifact://apps/a/users/u/x"))
    assert not artifact_util.is_artifact_ref(file_part("https://example.com/x"))
    assert not artifact_util.is_artifact_ref(types.Part(text="artifact://apps/a"))


def test_resolving_checks_depth_form_and_scope() -> None:
    uri = artifact_util.get_artifact_uri("app", "u", "f", 2, session_id="s")
    where: dict[str, Any] = {"app_name": "app", "user_id": "u", "session_id": "s"}
    parsed = artifact_util.resolve_artifact_reference(file_uri=uri, remaining_depth=1, **where)
    assert parsed.version == 2
    for bad in (
        {"remaining_depth": 0},
        {"remaining_depth": 1, "session_id": "other"},
        {"remaining_depth": 1, "user_id": "other"},
        {"remaining_depth": 1, "file_uri": "artifact://nope"},
    ):
        with pytest.raises(InputValidationError):
            artifact_util.resolve_artifact_reference(**{"file_uri": uri, **where, **bad})


@pytest.mark.parametrize("value", ["alice", "team/alice", "a\\b", "my.app", "..x"])
def test_safe_segments_pass(value: str) -> None:
    artifact_util.validate_path_segment(value, "user_id")


@pytest.mark.parametrize(
    "value",
    ["", "  ", ".", "..", "a/../b", "a\x00b", "/etc", "\\x", "C:x", "team/sessions/x"],
)
def test_unsafe_segments_are_refused(value: str) -> None:
    with pytest.raises(InputValidationError, match="user_id"):
        artifact_util.validate_path_segment(value, "user_id")
